"use client";
// A form's error about one field, shown under that field: ActionForm provides its last result, and
// a field renders <FieldError name=…/> after its input (components/ui/fields.tsx).
import { createContext, useContext } from "react";
import type { ActionResult } from "./action-result";

export const FormResultContext = createContext<ActionResult | null>(null);

/** `id`: what the field's aria-describedby names. */
export function FieldError({ name, id }: { name: string; id: string }) {
  const result = useContext(FormResultContext);
  if (!result || result.ok || result.field !== name) return null;
  return (
    <span id={id} role="alert" className="mt-1 block text-sm font-normal text-rose-700">
      {result.message}
    </span>
  );
}
