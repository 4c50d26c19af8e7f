import { redirect } from "next/navigation";
import { oidcEnabled } from "@/auth";
import { generateSync } from "otplib";
import { factorMethods } from "@/lib/core/auth/mfa/factor-facts";
import { env } from "@/lib/core/config/env";
import { DEMO_TOTP_SECRET, DEMO_USERS } from "@/lib/operations/demo/demo-data";
import { passkeyChallengeAction } from "../../(dashboard)/account/actions";
import { currentSession, stagePath } from "../../_lib/session";
import { callbackTarget } from "../callback-target";
import { FactorStep } from "./factor-step";

export const dynamic = "force-dynamic";
export const metadata = { title: "Second factor · Keyhook" };

// The second step of a sign-in: the password was right; now one of the person's factors.
export default async function FactorPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const after = callbackTarget((await searchParams).callbackUrl);
  const session = await currentSession();
  if (!session) redirect("/signin");
  if (session.stage === "complete") redirect(after);
  if (session.stage === "enrol") redirect(stagePath("enrol", after));
  const methods = await factorMethods(session.actor.id);
  const demo =
    env().NODE_ENV === "development" && DEMO_USERS.some((user) => user.email === session.actor.email)
      ? generateSync({ secret: DEMO_TOTP_SECRET })
      : null;
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4 py-12">
      <h1 className="text-2xl font-semibold">Second factor</h1>
      <p className="mt-1 break-words text-sm text-slate-600">
        Signed in as {session.actor.email}. Confirm it&apos;s you with one of your factors.
      </p>
      <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <FactorStep
          methods={methods}
          passkeyChallenge={passkeyChallengeAction}
          callbackPath={after}
          ssoName={session.sso ? (oidcEnabled()?.name ?? null) : null}
        />
      </div>
      {demo ? (
        <p className="mt-4 rounded-md border border-slate-200 bg-slate-50 p-3 text-xs text-slate-600">
          Development only: the demo authenticator shows <code className="font-mono">{demo}</code> right now (reload for
          the next one).
        </p>
      ) : null}
    </main>
  );
}
