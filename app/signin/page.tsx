import { redirect } from "next/navigation";
import { oidcEnabled } from "@/auth";
import { ROLE_NAMES } from "@/components/ui/role-names";
import { DEMO_PASSWORD, DEMO_TOTP_SECRET, DEMO_USERS } from "@/lib/operations/demo/demo-data";
import { env } from "@/lib/core/config/env";
import { ENDED_SESSION_MESSAGES, signInErrorMessage } from "@/lib/core/auth/sign-in-messages";
import { currentSession, endedSession, stagePath } from "../_lib/session";
import { callbackTarget } from "./callback-target";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Keyhook" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const after = callbackTarget(params.callbackUrl);
  const session = await currentSession();
  if (session?.stage === "complete") redirect(after);
  // Password given, second factor still to come: that step, not the password again.
  if (session) redirect(stagePath(session.stage, after));
  const ended = await endedSession();
  const code = typeof params.error === "string" ? params.error : undefined;
  // Only known codes become their sentence; any other text in the URL becomes one generic sentence.
  const error = signInErrorMessage(code);
  const oidc = oidcEnabled();
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4 py-12">
      <h1 className="text-2xl font-semibold">Sign in to Keyhook</h1>
      <p className="mt-1 text-sm text-slate-600">Key lifecycle webhooks, exactly once.</p>
      {ended ? (
        <p
          role="status"
          data-testid="session-ended"
          className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900"
        >
          {ENDED_SESSION_MESSAGES[ended]}
        </p>
      ) : null}
      <SignInForm
        initialError={error}
        oidcName={oidc?.name ?? null}
        callbackPath={after}
        demo={env().NODE_ENV === "development" ? demoSignIns() : null}
      />
    </main>
  );
}

// `npm run dev` seeds one account per role with a public password: offered here, in development
// only (a production build never shows them, whatever it seeded).
function demoSignIns() {
  return {
    password: DEMO_PASSWORD,
    totpSecret: DEMO_TOTP_SECRET,
    accounts: DEMO_USERS.map((user) => ({
      email: user.email,
      label: `${ROLE_NAMES[user.role]}${user.tenantId ? ` of ${user.tenantId}` : ""}`,
    })),
  };
}
