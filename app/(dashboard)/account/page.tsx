import Link from "next/link";
import { ActionForm } from "@/components/action-form";
import { Card } from "@/components/ui/card";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { listOwnFactors } from "@/lib/views/account/list-own-factors";
import { callbackTarget } from "../../signin/callback-target";
import { requirePageActor } from "../../_lib/session";
import { issueRecoveryCodesAction, removeFactorAction, startPasskeyAction, startTotpAction } from "./actions";
import { AddFactor } from "./add-factor";

export const metadata = { title: "Account security · Keyhook" };

export default async function AccountPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requirePageActor("account.view");
  const params = await searchParams;
  const view = await listOwnFactors({ actor });
  const usedRecovery = params.recovery === "used";
  return (
    <>
      <PageHeader
        title="Account security"
        description={
          view.required
            ? "Your role must have a second factor: it is asked at sign-in and again before dangerous actions."
            : "A second factor is optional for your role; once you add one, sign-in asks for it."
        }
      />
      <div className="space-y-6">
        {usedRecovery ? (
          <p
            role="status"
            data-testid="recovery-used"
            className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950"
          >
            You signed in with a recovery code. {view.recoveryCodesLeft} of 10 left
            {view.recoveryCodesLeft <= 3 ? ": make new ones below" : ""}.{" "}
            <Link className="underline" href={callbackTarget(params.callbackUrl)}>
              Continue
            </Link>
          </p>
        ) : null}
        <Card title="Your second factors">
          {view.factors.length === 0 ? (
            <p className="text-sm text-slate-600">None yet.</p>
          ) : (
            <ul className="divide-y divide-slate-100" aria-label="Second factors">
              {view.factors.map((factor) => (
                <li
                  key={factor.id}
                  data-factor-kind={factor.kind}
                  className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between"
                >
                  <div className="min-w-0 text-sm">
                    <div className="font-medium">
                      {factor.label}{" "}
                      <span className="text-xs font-normal text-slate-500">
                        ({factor.kind === "totp" ? "authenticator app" : "passkey"})
                      </span>
                    </div>
                    <div className="text-xs text-slate-500">
                      added {formatTime(factor.createdAt)} · last used {formatTime(factor.lastUsedAt)}
                    </div>
                  </div>
                  <ActionForm
                    action={removeFactorAction}
                    hidden={{ factorId: factor.id }}
                    submitLabel="Remove"
                    tone="secondary"
                    confirm={{ prompt: `Remove ${factor.label}?`, confirmLabel: "Yes, remove" }}
                  />
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card title="Add a factor">
          <AddFactor
            startTotp={startTotpAction}
            startPasskey={startPasskeyAction}
            issueRecoveryCodes={issueRecoveryCodesAction}
            passkeysAvailable={view.passkeysAvailable}
            firstFactor={view.factors.length === 0}
          />
        </Card>
        <Card title="Recovery codes">
          <p className="mb-3 text-sm text-slate-600" data-testid="recovery-left">
            {view.recoveryCodesIssued
              ? `${view.recoveryCodesLeft} of 10 left. Each works once in place of your second factor.`
              : "None yet: they come with your first factor."}
          </p>
          {view.factors.length > 0 ? (
            <ActionForm
              action={issueRecoveryCodesAction}
              submitLabel="Make new recovery codes"
              tone="secondary"
              confirm={{
                prompt: "Make ten new codes? The old ones stop working.",
                confirmLabel: "Yes, make new codes",
              }}
            />
          ) : null}
        </Card>
      </div>
    </>
  );
}
