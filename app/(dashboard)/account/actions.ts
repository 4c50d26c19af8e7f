"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { passkeyAuthenticationOptions } from "@/lib/core/auth/mfa/passkeys";
import {
  removeOwnFactor,
  renewRecoveryCodes,
  startPasskeyEnrolment,
  startTotpEnrolment,
} from "@/lib/core/auth/mfa/manage-own-factors";
import { action, text } from "../../_lib/run-action";

const nothing = z.object({});

// Enrolment may start before the sign-in is complete (a role that must have a factor and has
// none yet); the confirmation that makes it count is a proof in its own right (auth.ts, "mfa").
export const startTotpAction = action(
  "account.factors",
  nothing,
  async (_input, actor) => {
    const setup = await startTotpEnrolment({ actor });
    return {
      ok: true,
      message: "Scan the code, then enter the code your app shows.",
      data: { factorId: setup.factorId, secret: setup.secret, qrSvg: setup.qrSvg },
    };
  },
  { beforeFactor: true },
);

export const startPasskeyAction = action(
  "account.factors",
  nothing,
  async (_input, actor) => ({
    ok: true,
    message: "Follow your browser's prompt.",
    data: { options: await startPasskeyEnrolment({ actor }) },
  }),
  { beforeFactor: true },
);

/** A passkey challenge for the second step of sign-in (and the step-up dialog). */
export const passkeyChallengeAction = action(
  "account.view",
  nothing,
  async (_input, actor) => ({
    ok: true,
    message: "Follow your browser's prompt.",
    data: { options: JSON.stringify(await passkeyAuthenticationOptions({ userId: actor.id })) },
  }),
  { beforeFactor: true },
);

// No revalidatePath: the enrolment page that calls this right after a first factor would be
// rendered again, see a complete sign-in and move on before the codes are shown.
export const issueRecoveryCodesAction = action("account.factors", nothing, async (_input, actor) => {
  const codes = await renewRecoveryCodes({ actor });
  return { ok: true, message: `${codes.length} new recovery codes; the old ones no longer work.`, data: { codes } };
});

export const removeFactorAction = action(
  "account.factors",
  z.object({ factorId: text(100) }),
  async (input, actor) => {
    const removed = await removeOwnFactor({ actor, factorId: input.factorId });
    revalidatePath("/account");
    return removed.left === 0
      ? `Removed ${removed.label}. You hold no second factor now.`
      : `Removed ${removed.label}.`;
  },
  { target: (input) => input.factorId },
);
