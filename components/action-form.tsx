"use client";
// A form bound to a server action that reports the result where it was asked for: an error about
// one field under that field, anything else next to the button; with an optional confirmation
// step for actions that cannot be undone. What was typed stays after an error (React would reset
// the form after every action): the submit is dispatched by hand, and the form is reset only once
// the action succeeded.
import { startTransition, useActionState, useCallback, useEffect, useId, useRef, useState } from "react";
import type { ActionResult } from "./action-result";
import { useReportResult } from "./action-results";
import { FormAnswerContext } from "./ui/field-state";
import { RecoveryCodes } from "./factors/recovery-codes";
import { StepUpDialog } from "./factors/step-up-dialog";
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
  /**
   * The action is done and its button gone (a revoked key's row): this note shows instead, with
   * the answer kept next to it, so the answer stays where it was asked rather than in a toast.
   */
  done?: React.ReactNode;
};

function SubmitButton({ label, tone, pending }: { label: string; tone: keyof typeof buttonClass; pending: boolean }) {
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
  done,
}: Props) {
  const report = useReportResult();
  // The latest answer, for the page-wide region should this form leave the page with it. Kept
  // as the action answers: the re-render it causes may unmount the form in the same commit.
  const latest = useRef<ActionResult | null>(null);
  const remembering = useCallback(
    async (previous: ActionResult | null, data: FormData) => (latest.current = await action(previous, data)),
    [action],
  );
  const [result, formAction, pending] = useActionState(remembering, null);
  const [confirming, setConfirming] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // What was sent last: sent again once a step-up proved a factor.
  const sent = useRef<FormData | null>(null);
  const [dismissedStepUp, setDismissedStepUp] = useState<number | null>(null);
  const idPrefix = useId();
  const [fields, setFields] = useState<ReadonlySet<string>>(() => new Set());
  const registerField = useCallback((name: string) => {
    setFields((current) => new Set(current).add(name));
    return () =>
      setFields((current) => {
        const next = new Set(current);
        next.delete(name);
        return next;
      });
  }, []);
  useEffect(() => {
    if (result?.ok) form.current?.reset();
  }, [result]);
  // The re-render an action causes may remove this very form (a revoked key's row loses its
  // revoke form): its answer then goes to the page-wide region instead of vanishing with it.
  useEffect(
    () => () => {
      const last = latest.current;
      if (last && Date.now() - last.at < 30_000) report(last);
    },
    [report],
  );

  const submit = useCallback(
    (event: React.FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      setConfirming(false);
      const data = new FormData(event.currentTarget);
      sent.current = data;
      startTransition(() => formAction(data));
    },
    [formAction],
  );

  const stepUp =
    result?.stepUp && dismissedStepUp !== result.at && !pending ? (
      <StepUpDialog
        stepUp={result.stepUp}
        onCancel={() => setDismissedStepUp(result.at)}
        onProven={() => {
          const data = sent.current;
          if (data) startTransition(() => formAction(data));
        }}
      />
    ) : null;
  const codes = result?.ok && Array.isArray(result.data?.codes) ? (result.data.codes as string[]) : null;
  const answer =
    result && !result.stepUp && !(result.field && !result.ok && fields.has(result.field)) ? (
      <p
        key={result.at}
        role="status"
        data-result={result.ok ? "ok" : "error"}
        className={`text-sm [overflow-wrap:anywhere] ${result.ok ? "text-emerald-700" : "text-rose-700"}`}
      >
        {result.message}
      </p>
    ) : null;
  if (done) {
    return (
      <div className={`flex flex-col gap-1 ${className}`} data-action-done>
        {done}
        {answer}
      </div>
    );
  }
  if (disabledReason) {
    // Also after an action made itself pointless (a bulk redelivery leaves nothing to redeliver):
    // its answer stays in view.
    return (
      <div className={`flex flex-col gap-1 ${className}`}>
        <div>
          <button type="button" className={buttonClass[tone]} disabled title={disabledReason}>
            {submitLabel}
          </button>
        </div>
        <p className="text-xs text-slate-500">{disabledReason}</p>
        {answer}
      </div>
    );
  }
  return (
    <FormAnswerContext.Provider value={{ result, idPrefix, registerField }}>
      <form ref={form} action={formAction} className={`flex flex-col gap-2 ${className}`} onSubmit={submit}>
        {Object.entries(hidden).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        {children}
        {confirm && !confirming ? (
          <div>
            {/* After "Yes": the question closes at once and this button says the action is running. */}
            <button
              type="button"
              className={buttonClass[tone]}
              onClick={() => setConfirming(true)}
              disabled={pending}
              aria-busy={pending}
              data-action-button
            >
              {pending ? "Working…" : submitLabel}
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
              <SubmitButton label={confirm.confirmLabel} tone={tone} pending={pending} />
              <button type="button" className={buttonClass.secondary} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          </div>
        ) : null}
        {!confirm ? (
          <div>
            <SubmitButton label={submitLabel} tone={tone} pending={pending} />
          </div>
        ) : null}
        {answer}
        {codes ? <RecoveryCodes codes={codes} /> : null}
      </form>
      {stepUp}
    </FormAnswerContext.Provider>
  );
}
