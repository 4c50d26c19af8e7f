import { redirect } from "next/navigation";
import { oidcEnabled } from "@/auth";
import { currentActor } from "../_lib/session";
import { callbackTarget } from "./callback-target";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Keyhook" };

// next-auth's own error codes, worded for a person. A Credentials failure arrives as our message.
const errorMessages: Record<string, string> = {
  AccessDenied: "This account may not sign in here. Ask a platform admin to add you.",
  OAuthSignin: "Single sign-on could not start. Try again.",
  OAuthCallback: "Single sign-on did not complete. Try again.",
  SessionRequired: "Sign in to continue.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const after = callbackTarget(params.callbackUrl);
  if (await currentActor()) redirect(after);
  const code = typeof params.error === "string" ? params.error : undefined;
  const error = code ? (errorMessages[code] ?? (code.length < 200 && !/^[A-Z][a-zA-Z]+$/.test(code) ? code : "Sign-in failed. Try again.")) : undefined;
  const oidc = oidcEnabled();
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4 py-12">
      <h1 className="text-2xl font-semibold">Sign in to Keyhook</h1>
      <p className="mt-1 text-sm text-slate-600">Key lifecycle webhooks, exactly once.</p>
      <SignInForm initialError={error} oidcName={oidc?.name ?? null} callbackPath={after} />
    </main>
  );
}
