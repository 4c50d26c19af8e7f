"use client";
// A form bound to a server action that always reports the result next to the button (or, for an
// error about one field, under that field), with an optional confirmation step for actions that
// cannot be undone. A refused form keeps what was typed: React resets a form after its action,
// so the submitted values are put back.
import { useActionState, useCallback, useEffect, useRef, useState } from "react";
import { useFormStatus } from "react-dom";
import type { ActionResult } from "./action-result";
import { useReportResult } from "./action-results";
import { FormResultContext } from "./field-error";
import { buttonClass } from "./ui/fields";

type Props = {
  action: (previous: ActionResult | null, form: FormData) => Promise<ActionResult>;
  hidden?: Record<string, string>;
  submitLabel: string;
  tone?: keyof typeof buttonClass;
  /** Ask before submitting: the prompt and the confirm button's label. */
  confirm?: { prompt: string; confirmLabel: string };
  children?: React.ReactNode;
  className?: string;
  /** Shown instead of an active button when the action would change nothing. */
  disabledReason?: string;
};

/** Inputs whose value is not what was typed (or must not come back, a password). */
const NOT_RESTORED = new Set(["checkbox", "radio", "file", "hidden", "password", "submit", "button"]);

function SubmitButton({ label, tone }: { label: string; tone: keyof typeof buttonClass }) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" className={buttonClass[tone]} disabled={pending} aria-busy={pending} data-action-button>
      {pending ? "Working…" : label}
    </button>
  );
}

export function ActionForm({
  action,
  hidden = {},
  submitLabel,
  tone = "primary",
  confirm,
  children,
  className = "",
  disabledReason,
}: Props) {
  const report = useReportResult();
  const formRef = useRef<HTMLFormElement>(null);
  const submitted = useRef<FormData | null>(null);
  // Also into the page-wide region, as soon as the action answers: the re-render it causes may
  // remove this very form (a revoked key's row has no revoke form), taking its state along.
  const reportingAction = useCallback(
    async (previous: ActionResult | null, form: FormData) => {
      submitted.current = form;
      const outcome = await action(previous, form);
      report(outcome);
      return outcome;
    },
    [action, report],
  );
  const [result, formAction] = useActionState(reportingAction, null);
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    const form = formRef.current;
    if (!form || !result) return;
    for (const element of Array.from(form.elements)) {
      if (!(
        element instanceof HTMLInputElement ||
        element instanceof HTMLSelectElement ||
        element instanceof HTMLTextAreaElement
      ))
        continue;
      const typed = submitted.current?.get(element.name);
      if (!result.ok && typeof typed === "string" && !NOT_RESTORED.has(element.type)) element.value = typed;
      if (element.name && element.name === result.field && !result.ok) element.setAttribute("aria-invalid", "true");
      else element.removeAttribute("aria-invalid");
    }
    if (!result.ok && result.field) (form.elements.namedItem(result.field) as HTMLElement | null)?.focus();
  }, [result]);
  if (disabledReason) {
    return (
      <div className={`flex flex-col gap-1 ${className}`}>
        <div>
          <button type="button" className={buttonClass[tone]} disabled title={disabledReason}>
            {submitLabel}
          </button>
        </div>
        <p className="text-xs text-slate-500">{disabledReason}</p>
      </div>
    );
  }
  return (
    <FormResultContext.Provider value={result}>
      <form
        ref={formRef}
        action={formAction}
        className={`flex flex-col gap-2 ${className}`}
        onSubmit={() => setConfirming(false)}
      >
        {Object.entries(hidden).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        {children}
        {confirm && !confirming ? (
          <div>
            <button type="button" className={buttonClass[tone]} onClick={() => setConfirming(true)} data-action-button>
              {submitLabel}
            </button>
          </div>
        ) : null}
        {confirm && confirming ? (
          <div
            role="alertdialog"
            aria-label={confirm.prompt}
            className="rounded-md border border-rose-200 bg-rose-50 p-3 text-sm"
          >
            <p className="mb-2 text-rose-900">{confirm.prompt}</p>
            <div className="flex flex-wrap gap-2">
              <SubmitButton label={confirm.confirmLabel} tone={tone} />
              <button type="button" className={buttonClass.secondary} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          </div>
        ) : null}
        {!confirm ? (
          <div>
            <SubmitButton label={submitLabel} tone={tone} />
          </div>
        ) : null}
        {result && (result.ok || !result.field) ? (
          <p
            key={result.at}
            role="status"
            data-result={result.ok ? "ok" : "error"}
            className={`text-sm ${result.ok ? "text-emerald-700" : "text-rose-700"}`}
          >
            {result.message}
          </p>
        ) : null}
      </form>
    </FormResultContext.Provider>
  );
}
