"use client";
// Ten recovery codes, shown this once (only their hashes are kept): each stands in for your
// factor one time, for when the phone or key is lost.
import { buttonClass } from "../ui/fields";

export function RecoveryCodes({ codes, onSaved }: { codes: string[]; onSaved?: () => void }) {
  return (
    <section aria-labelledby="recovery-codes-title" className="flex flex-col gap-3">
      <h2 id="recovery-codes-title" className="text-base font-semibold">
        Your recovery codes
      </h2>
      <p className="text-sm text-slate-700">
        Write these down or keep them in a password manager: they are shown only now. Each works once, in place of your
        second factor.
      </p>
      <ol data-testid="recovery-codes" className="grid grid-cols-2 gap-2 font-mono text-sm">
        {codes.map((code) => (
          <li key={code} className="rounded border border-slate-200 bg-slate-50 px-2 py-1">
            {code}
          </li>
        ))}
      </ol>
      {onSaved ? (
        <div>
          <button type="button" className={buttonClass.primary} onClick={onSaved}>
            I have saved them: continue
          </button>
        </div>
      ) : null}
    </section>
  );
}
