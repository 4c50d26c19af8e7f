"use client";
// Adds a second factor: an authenticator app (QR code and the key in text, counted once its first
// code is confirmed) or a passkey / security key. The first factor of an account also brings its
// ten recovery codes, shown here once. Confirming goes through next-auth's "mfa" provider like
// any proof, so the session counts it as a factor proven just now.
import { startRegistration } from "@simplewebauthn/browser";
import { signIn } from "next-auth/react";
import { useId, useState } from "react";
import type { ActionResult } from "../action-result";
import { buttonClass } from "../ui/fields";
import { RecoveryCodes } from "./recovery-codes";
import { StepUpDialog } from "./step-up-dialog";
import { useHydrated } from "./use-hydrated";

type Action = (previous: ActionResult | null, form: FormData) => Promise<ActionResult>;
type TotpSetup = { factorId: string; secret: string; qrSvg: string };

export function EnrolFactor({
  startTotp,
  startPasskey,
  issueRecoveryCodes,
  passkeysAvailable,
  firstFactor,
  onFinished,
}: {
  startTotp: Action;
  startPasskey: Action;
  issueRecoveryCodes: Action;
  passkeysAvailable: boolean;
  /** The account holds no factor yet: recovery codes come with this one. */
  firstFactor: boolean;
  onFinished: () => void;
}) {
  const ready = useHydrated();
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [totp, setTotp] = useState<TotpSetup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  // Adding to an account that holds a factor asks for it again when the last proof is old.
  const [stepUp, setStepUp] = useState<{ ask: NonNullable<ActionResult["stepUp"]>; retry: () => void } | null>(null);

  async function call(action: Action, retry?: () => void): Promise<ActionResult | null> {
    const result = await action(null, new FormData());
    if (result.stepUp && retry) {
      setStepUp({ ask: result.stepUp, retry });
      return null;
    }
    if (!result.ok) {
      setError(result.message);
      return null;
    }
    return result;
  }

  async function confirmed() {
    if (firstFactor) {
      const result = await call(issueRecoveryCodes);
      const list = result?.data?.codes;
      if (Array.isArray(list)) {
        setCodes(list);
        setPending(false);
        return;
      }
    }
    onFinished();
  }

  async function beginTotp() {
    setPending(true);
    setError(null);
    const result = await call(startTotp, () => void beginTotp());
    const data = result?.data;
    if (data && typeof data.factorId === "string" && typeof data.secret === "string" && typeof data.qrSvg === "string")
      setTotp({ factorId: data.factorId, secret: data.secret, qrSvg: data.qrSvg });
    setPending(false);
  }

  async function confirmTotp(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!totp) return;
    const code = String(new FormData(event.currentTarget).get("totp") ?? "");
    setPending(true);
    setError(null);
    const result = await signIn("mfa", { enrolTotp: totp.factorId, totp: code, redirect: false });
    if (result?.ok && !result.error) return void (await confirmed());
    setError("That code did not match. Enter the code your app shows now.");
    setPending(false);
  }

  async function addPasskey() {
    setPending(true);
    setError(null);
    try {
      const result = await call(startPasskey, () => void addPasskey());
      const options = result?.data?.options;
      if (typeof options !== "string") return setPending(false);
      const response = await startRegistration({ optionsJSON: JSON.parse(options) });
      const signedIn = await signIn("mfa", {
        enrolPasskey: JSON.stringify(response),
        label: "Passkey",
        redirect: false,
      });
      if (signedIn?.ok && !signedIn.error) return void (await confirmed());
      setError("The passkey could not be added. Try again.");
    } catch {
      setError("The passkey was not created (cancelled, or this device has none). Try again.");
    }
    setPending(false);
  }

  if (codes)
    return (
      <RecoveryCodes
        codes={codes}
        onSaved={() => {
          setCodes(null);
          onFinished();
        }}
      />
    );
  if (stepUp)
    return (
      <StepUpDialog
        stepUp={stepUp.ask}
        onCancel={() => setStepUp(null)}
        onProven={() => {
          setStepUp(null);
          stepUp.retry();
        }}
      />
    );

  return (
    <div className="flex flex-col gap-4">
      {error ? (
        <p role="alert" className="rounded-md border border-rose-300 bg-rose-50 p-2 text-sm text-rose-800">
          {error}
        </p>
      ) : null}
      {totp ? (
        <div className="flex flex-col gap-3">
          <p className="text-sm text-slate-700">
            Scan this with your authenticator app (or type the key), then enter the code it shows.
          </p>
          {/* eslint-disable-next-line @next/next/no-img-element -- a data: URL of an SVG made on the server */}
          <img
            src={`data:image/svg+xml;base64,${btoa(totp.qrSvg)}`}
            alt="QR code of the authenticator key"
            width={192}
            height={192}
            className="rounded border border-slate-200 bg-white"
          />
          <p className="text-sm text-slate-700">
            Key:{" "}
            <code data-testid="totp-secret" className="break-all font-mono text-sm">
              {totp.secret}
            </code>
          </p>
          <form method="post" onSubmit={(e) => void confirmTotp(e)} className="flex flex-col gap-3" noValidate>
            <label className="block text-sm font-medium text-slate-700" htmlFor={`${id}-code`}>
              Code from the app
              <input
                id={`${id}-code`}
                name="totp"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={8}
                required
                className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-sm tracking-widest"
              />
            </label>
            <button type="submit" className={buttonClass.primary} disabled={!ready || pending}>
              {pending ? "Checking…" : "Confirm and add"}
            </button>
          </form>
        </div>
      ) : (
        <div className="flex flex-col gap-2 sm:flex-row">
          <button
            type="button"
            className={buttonClass.primary}
            disabled={!ready || pending}
            onClick={() => void beginTotp()}
          >
            Set up an authenticator app
          </button>
          {passkeysAvailable ? (
            <button
              type="button"
              className={buttonClass.secondary}
              disabled={!ready || pending}
              onClick={() => void addPasskey()}
            >
              Add a passkey or security key
            </button>
          ) : null}
        </div>
      )}
    </div>
  );
}
