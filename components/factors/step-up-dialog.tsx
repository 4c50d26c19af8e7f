"use client";
// "Confirm it's you": shown when a dangerous action answered that the session's last factor is
// too old (app/_lib/run-action.ts). The caller keeps what the form held and sends it again once
// a factor is proven here.
import type { ActionResult } from "../action-result";
import { buttonClass } from "../ui/fields";
import { FactorPrompt } from "./factor-prompt";

export function StepUpDialog({
  stepUp,
  onProven,
  onCancel,
}: {
  stepUp: NonNullable<ActionResult["stepUp"]>;
  onProven: () => void;
  onCancel: () => void;
}) {
  return (
    <div
      role="dialog"
      aria-modal="false"
      aria-labelledby="step-up-title"
      className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm"
    >
      <h3 id="step-up-title" className="mb-1 font-semibold text-amber-950">
        Confirm it&apos;s you
      </h3>
      <p className="mb-3 text-amber-900">
        This changes credentials or access, and your last second factor was a while ago. What you entered is kept.
      </p>
      {stepUp.methods.length === 0 ? (
        <p className="text-amber-900">Your account holds no second factor to confirm with. Sign in again.</p>
      ) : (
        <FactorPrompt
          methods={stepUp.methods}
          passkeyOptions={async () => stepUp.passkeyOptions ?? null}
          onDone={onProven}
        />
      )}
      <button type="button" className={`${buttonClass.secondary} mt-3`} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
