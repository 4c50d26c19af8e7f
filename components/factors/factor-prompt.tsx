"use client";
// Asks for one proof of a second factor: a code from the authenticator app, a passkey, or a
// recovery code; the ways offered are the ones this person holds. Each goes to next-auth's "mfa"
// provider, which checks it and issues the session again with the time of the proof. Used by the
// second step of sign-in and by the step-up dialog of a dangerous action. Until the script has
// run its buttons are disabled (nothing is ever submitted by a plain form).
import { startAuthentication } from "@simplewebauthn/browser";
import { signIn } from "next-auth/react";
import { useId, useState } from "react";
import type { StepUpMethod } from "../action-result";
import { buttonClass } from "../ui/fields";
import { useHydrated } from "./use-hydrated";

const inputClass = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm";
const REFUSED = "That did not work. Check the code (or use another way) and try again.";

export function FactorPrompt({
  methods,
  passkeyOptions,
  onDone,
  ssoName,
  ssoCallbackPath,
}: {
  methods: StepUpMethod[];
  /** A passkey challenge for this person (JSON of the request options), or null when none can be made. */
  passkeyOptions: () => Promise<string | null>;
  onDone: (method: "totp" | "passkey" | "recovery") => void;
  ssoName?: string | null;
  ssoCallbackPath?: string;
}) {
  const ready = useHydrated();
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [recovery, setRecovery] = useState(!methods.includes("totp") && !methods.includes("passkey"));

  async function prove(method: "totp" | "passkey" | "recovery", fields: Record<string, string>) {
    setPending(true);
    setError(null);
    try {
      const result = await signIn("mfa", { ...fields, redirect: false });
      if (result?.ok && !result.error) {
        onDone(method);
        return;
      }
      setError(result?.error === "SignInBusy" ? "Sign-in is busy right now. Try again in a moment." : REFUSED);
    } catch {
      setError("Could not reach the server. Try again.");
    }
    setPending(false);
  }

  async function proveWithPasskey() {
    setError(null);
    try {
      const options = await passkeyOptions();
      if (!options) throw new Error("no options");
      const response = await startAuthentication({ optionsJSON: JSON.parse(options) });
      await prove("passkey", { passkey: JSON.stringify(response) });
    } catch {
      setError("The passkey did not answer. Try again, or use another way.");
      setPending(false);
    }
  }

  const submitCode = (name: "totp" | "recovery") => (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get(name) ?? "");
    void prove(name, { [name]: value });
  };

  return (
    <div className="flex flex-col gap-4">
      {error ? (
        <p role="alert" className="rounded-md border border-rose-300 bg-rose-50 p-2 text-sm text-rose-800">
          {error}
        </p>
      ) : null}
      {methods.includes("totp") && !recovery ? (
        <form method="post" onSubmit={submitCode("totp")} className="flex flex-col gap-3" noValidate>
          <label className="block text-sm font-medium text-slate-700" htmlFor={`${id}-totp`}>
            Code from your authenticator app
            <input
              id={`${id}-totp`}
              name="totp"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]*"
              maxLength={8}
              required
              className={`${inputClass} font-mono tracking-widest`}
            />
          </label>
          <button type="submit" className={buttonClass.primary} disabled={!ready || pending}>
            {pending ? "Checking…" : "Confirm"}
          </button>
        </form>
      ) : null}
      {methods.includes("passkey") && !recovery ? (
        <button
          type="button"
          className={methods.includes("totp") ? buttonClass.secondary : buttonClass.primary}
          disabled={!ready || pending}
          onClick={() => void proveWithPasskey()}
        >
          Use a passkey or security key
        </button>
      ) : null}
      {methods.includes("sso") && ssoName ? (
        <button
          type="button"
          className={buttonClass.primary}
          disabled={!ready || pending}
          onClick={() => void signIn("oidc", { callbackUrl: ssoCallbackPath ?? window.location.pathname })}
        >
          Sign in again with {ssoName}
        </button>
      ) : null}
      {methods.includes("recovery") && recovery ? (
        <form method="post" onSubmit={submitCode("recovery")} className="flex flex-col gap-3" noValidate>
          <label className="block text-sm font-medium text-slate-700" htmlFor={`${id}-recovery`}>
            Recovery code
            <input
              id={`${id}-recovery`}
              name="recovery"
              autoComplete="off"
              spellCheck={false}
              maxLength={40}
              required
              className={`${inputClass} font-mono`}
            />
          </label>
          <button type="submit" className={buttonClass.primary} disabled={!ready || pending}>
            {pending ? "Checking…" : "Use recovery code"}
          </button>
        </form>
      ) : null}
      {methods.includes("recovery") && (methods.includes("totp") || methods.includes("passkey")) ? (
        <button
          type="button"
          className="self-start text-sm text-slate-600 underline underline-offset-2 hover:text-slate-900"
          disabled={!ready}
          onClick={() => {
            setRecovery(!recovery);
            setError(null);
          }}
        >
          {recovery ? "Use your authenticator or passkey instead" : "Lost your device? Use a recovery code"}
        </button>
      ) : null}
    </div>
  );
}
