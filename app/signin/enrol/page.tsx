import { redirect } from "next/navigation";
import { relyingParty } from "@/lib/core/auth/mfa/passkeys";
import { ROLE_NAMES } from "@/components/ui/role-names";
import { issueRecoveryCodesAction, startPasskeyAction, startTotpAction } from "../../(dashboard)/account/actions";
import { currentSession, stagePath } from "../../_lib/session";
import { callbackTarget } from "../callback-target";
import { EnrolStep } from "./enrol-step";

export const dynamic = "force-dynamic";
export const metadata = { title: "Set up a second factor · Keyhook" };

// A role that must have a second factor and an account with none yet: nothing else until it has one.
export default async function EnrolPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const after = callbackTarget((await searchParams).callbackUrl);
  const session = await currentSession();
  if (!session) redirect("/signin");
  if (session.stage === "complete") redirect(after);
  if (session.stage === "factor") redirect(stagePath("factor", after));
  return (
    <main className="mx-auto flex min-h-screen max-w-lg flex-col justify-center px-4 py-12">
      <h1 className="text-2xl font-semibold">Set up a second factor</h1>
      <p className="mt-1 break-words text-sm text-slate-600">
        {session.actor.email}: your role ({ROLE_NAMES[session.actor.role]}) must have a second factor. Keyhook asks for
        it at every sign-in and again before dangerous actions. Add one to continue.
      </p>
      <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <EnrolStep
          startTotp={startTotpAction}
          startPasskey={startPasskeyAction}
          issueRecoveryCodes={issueRecoveryCodesAction}
          passkeysAvailable={relyingParty() !== null}
          callbackPath={after}
        />
      </div>
    </main>
  );
}
