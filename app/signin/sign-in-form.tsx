"use client";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { buttonClass } from "@/components/ui/fields";
import { signInErrorMessage } from "@/lib/auth/sign-in-messages";

export function SignInForm({
  initialError,
  oidcName,
  callbackPath,
}: {
  initialError?: string;
  oidcName: string | null;
  callbackPath: string;
}) {
  const router = useRouter();
  const [error, setError] = useState(initialError);
  const [pending, setPending] = useState(false);

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
        router.replace(callbackPath);
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
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
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
        <button type="submit" className={buttonClass.primary} disabled={pending}>
          {pending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {oidcName ? (
        <button
          type="button"
          className={`${buttonClass.secondary} mt-3 w-full`}
          onClick={() => void signIn("oidc", { callbackUrl: callbackPath })}
        >
          Sign in with {oidcName}
        </button>
      ) : null}
    </div>
  );
}
