"use client";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useRef, useState, useSyncExternalStore } from "react";
import { buttonClass } from "@/components/ui/fields";
import { signInErrorMessage } from "@/lib/core/auth/sign-in-messages";

export function SignInForm({
  initialError,
  oidcName,
  callbackPath,
  demo,
}: {
  initialError?: string;
  oidcName: string | null;
  callbackPath: string;
  /** Development only: the demo accounts, offered to fill the form with. */
  demo: { password: string; totpSecret: string; accounts: { email: string; label: string }[] } | null;
}) {
  const router = useRouter();
  const form = useRef<HTMLFormElement>(null);
  const [error, setError] = useState(initialError);
  const [pending, setPending] = useState(false);
  const ready = useHydrated();

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(undefined);
    try {
      const result = await signIn("credentials", {
        email: String(form.get("email") ?? ""),
        password: String(form.get("password") ?? ""),
        redirect: false,
      });
      if (result?.ok && !result.error) {
        // The second step decides: a factor to prove or enrol, or straight on to the page.
        router.replace(`/signin/factor?${new URLSearchParams({ callbackUrl: callbackPath })}`);
        router.refresh();
        return;
      }
      // next-auth passes our code (or its own) through; only known codes have words.
      setError(signInErrorMessage(result?.error ?? "CredentialsSignin"));
    } catch {
      setError("Could not reach the server. Try again.");
    }
    setPending(false);
  }

  return (
    <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      {/* Until the script that signs in by fetch has run, the buttons are disabled (so Enter
          submits nothing either), and the form says POST: a password never lands in a URL. */}
      <form ref={form} onSubmit={submit} method="post" action="/signin" className="flex flex-col gap-4" noValidate>
        {error ? (
          <p role="alert" className="rounded-md border border-rose-300 bg-rose-50 p-2 text-sm text-rose-800">
            {error}
          </p>
        ) : null}
        <label className="block text-sm font-medium text-slate-700">
          Email
          <input
            name="email"
            type="email"
            autoComplete="username"
            required
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
          />
        </label>
        <label className="block text-sm font-medium text-slate-700">
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
          />
        </label>
        <button type="submit" className={buttonClass.primary} disabled={pending || !ready} aria-busy={!ready}>
          {pending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {demo ? (
        <section className="mt-5 border-t border-slate-200 pt-4" aria-labelledby="demo-sign-ins">
          <h2 id="demo-sign-ins" className="text-sm font-semibold text-slate-700">
            Demo sign-ins (development only)
          </h2>
          <p className="mt-1 text-xs text-slate-600">
            Password <code className="font-mono">{demo.password}</code>. Staff accounts then ask for an authenticator
            code: the demo key is <code className="break-all font-mono">{demo.totpSecret}</code> (
            <code className="font-mono">npm run dev</code> prints it; the next step shows the current code too). Choose
            one to fill the form:
          </p>
          <ul className="mt-2 space-y-1">
            {demo.accounts.map((account) => (
              <li key={account.email}>
                <button
                  type="button"
                  disabled={!ready}
                  className="w-full rounded-md px-2 py-1.5 text-left text-sm hover:bg-slate-100 disabled:opacity-50"
                  onClick={() => {
                    const fields = form.current?.elements;
                    fillField(fields, "email", account.email);
                    fillField(fields, "password", demo.password);
                    form.current?.querySelector<HTMLButtonElement>("button[type=submit]")?.focus();
                  }}
                >
                  <span className="block break-all font-mono text-xs">{account.email}</span>
                  <span className="block text-xs text-slate-600">{account.label}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {oidcName ? (
        <button
          type="button"
          disabled={!ready}
          className={`${buttonClass.secondary} mt-3 w-full`}
          onClick={() => void signIn("oidc", { callbackUrl: callbackPath })}
        >
          Sign in with {oidcName}
        </button>
      ) : null}
    </div>
  );
}

function fillField(fields: HTMLFormControlsCollection | undefined, name: string, value: string): void {
  const input = fields?.namedItem(name);
  if (input instanceof HTMLInputElement) input.value = value;
}

const noSubscription = () => () => {};

/** False in the server's HTML and until hydration, true once this component's script runs. */
function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
