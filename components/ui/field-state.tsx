"use client";
// What a field knows of its form's last answer (components/action-form.tsx provides it): an error
// about this very field is shown under it and marks the control invalid. Outside an ActionForm
// (a GET filter form) there is no answer and the controls are plain.
import { createContext, useContext, useEffect } from "react";
import type { ActionResult } from "../action-result";

type FormAnswer = {
  result: ActionResult | null;
  idPrefix: string;
  /** A field shows the form's errors about it: the form then leaves them out by its button. */
  registerField: (name: string) => () => void;
};

export const FormAnswerContext = createContext<FormAnswer | null>(null);

function useFieldError(name: string): { message: string; id: string } | null {
  const answer = useContext(FormAnswerContext);
  const result = answer?.result;
  if (!answer || !result || result.ok || result.field !== name) return null;
  return { message: result.message, id: `${answer.idPrefix}-${name}-error` };
}

type InputProps = React.InputHTMLAttributes<HTMLInputElement> & { name: string };
type SelectProps = React.SelectHTMLAttributes<HTMLSelectElement> & { name: string };

/** A field's own description (a hint) first, then the error about it, if any. */
const describedBy = (own: string | undefined, error: { id: string } | null) =>
  [own, error?.id].filter(Boolean).join(" ") || undefined;

export function FieldInput(props: InputProps) {
  const error = useFieldError(props.name);
  return (
    <input
      {...props}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy(props["aria-describedby"], error)}
    />
  );
}

export function FieldSelect(props: SelectProps) {
  const error = useFieldError(props.name);
  return (
    <select
      {...props}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy(props["aria-describedby"], error)}
    />
  );
}

/** The message of an answer about `name`, where the field is (outside its label). */
export function FieldError({ name }: { name: string }) {
  const register = useContext(FormAnswerContext)?.registerField;
  useEffect(() => register?.(name), [register, name]);
  const error = useFieldError(name);
  if (!error) return null;
  return (
    <p id={error.id} role="status" data-result="error" data-field={name} className="mt-1 text-sm text-rose-700">
      {error.message}
    </p>
  );
}
