import "server-only";
// The second step of a sign-in, a step-up, and the confirmation of a new factor: one proof (a
// TOTP code, a passkey assertion or registration, a recovery code) checked for the user a
// current session names. Wrong proofs are throttled by the very counter wrong passwords use
// (claim-sign-in-attempt.ts: one statement decides and counts, before anything is checked), so
// guesses of either kind add up; every refusal carries the same code whatever went wrong.
import { prisma, type DbOrTx } from "../../db/client";
import { env } from "../../config/env";
import { recordAudit } from "../../audit/record-audit";
import { recordSignInFailure } from "../../audit/record-sign-in-failure";
import { actorLabel, isRole, type Actor } from "../actor";
import {
  claimAccountAttempt,
  claimAddressAttempt,
  settleAccountSuccess,
  settleAddressSuccess,
} from "../claim-sign-in-attempt";
import { hashLimiter } from "../passwords";
import { SIGN_IN_ERROR_CODES, type SignInErrorCode } from "../sign-in-messages";
import { holdsFactor } from "./factor-facts";
import { needsStepUp } from "./mfa-policy";
import { acceptPasskey, registerPasskey } from "./passkeys";
import { spendRecoveryCode } from "./recovery-codes";
import { acceptTotpCode } from "./totp";

export type FactorProof =
  | { kind: "totp"; code: string }
  | { kind: "passkey"; response: unknown }
  | { kind: "recovery"; code: string }
  /** The first code of an authenticator being added: it confirms that factor. */
  | { kind: "enrol-totp"; factorId: string; code: string }
  | { kind: "enrol-passkey"; response: unknown; label: string };

type ProveFactorResult =
  | {
      ok: true;
      actor: Actor;
      sessionVersion: number;
      method: "totp" | "passkey" | "recovery";
      /** After a recovery code: how many are left. */
      recoveryCodesLeft?: number;
      /** A factor was added and it is the user's first. */
      firstFactor: boolean;
    }
  | { ok: false; reason: "invalid" | "locked" | "session" | "stale-factor" | "busy"; code: SignInErrorCode };

const refused = (reason: "invalid" | "locked" | "session" | "stale-factor"): ProveFactorResult => ({
  ok: false,
  reason,
  code: SIGN_IN_ERROR_CODES.factor,
});

export async function proveFactor(
  options: {
    userId: string;
    sessionVersion: number | null;
    /** When the session proved a factor last (a new factor needs a fresh one if the user holds any). */
    sessionFactorAt: Date | null;
    proof: FactorProof;
    address?: string;
    now?: Date;
  },
  db: DbOrTx = prisma,
): Promise<ProveFactorResult> {
  const now = options.now ?? new Date();
  const address = (options.address ?? "unknown").slice(0, 100);
  const queued = await hashLimiter().run(() => attempt({ ...options, now, address }, db));
  return queued.busy ? { ok: false, reason: "busy", code: SIGN_IN_ERROR_CODES.busy } : queued.value;
}

async function attempt(
  options: {
    userId: string;
    sessionVersion: number | null;
    sessionFactorAt: Date | null;
    proof: FactorProof;
    address: string;
    now: Date;
  },
  db: DbOrTx,
): Promise<ProveFactorResult> {
  const { proof, now, address } = options;
  const user = await db.user.findUnique({ where: { id: options.userId } });
  if (!user || user.disabledAt || !isRole(user.role) || user.sessionVersion !== options.sessionVersion)
    return refused("session");
  const actor: Actor = { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId };
  const held = await holdsFactor(user.id, db);
  const adding = proof.kind === "enrol-totp" || proof.kind === "enrol-passkey";
  // Adding a factor to an account that has one takes a fresh proof of the old one, so a stolen
  // session cannot plant its own.
  if (
    adding &&
    held &&
    needsStepUp(
      { role: actor.role, holdsFactor: true, factorAt: options.sessionFactorAt },
      now,
      env().MFA_STEP_UP_MINUTES,
    )
  )
    return refused("stale-factor");

  const open = (await claimAddressAttempt(address, now, db)) && (await claimAccountAttempt(user.id, now, db));
  const { accepted, left } = open ? await checkProof(user.id, proof, now, db) : { accepted: null, left: undefined };

  if (!accepted) {
    await recordSignInFailure(
      {
        subject: `factor:user:${user.id}`,
        actor: { id: user.id, label: actorLabel(actor) },
        tenantId: user.tenantId,
        address,
        now,
        reason: "wrong second factor",
      },
      db,
    );
    return refused(open ? "invalid" : "locked");
  }

  await settleAccountSuccess(user.id, now, db);
  await settleAddressSuccess(address, db);
  const method = proof.kind === "recovery" ? "recovery" : proof.kind.endsWith("passkey") ? "passkey" : "totp";
  await recordAudit(successEntry({ actor, proof: { adding, method, accepted, left, first: !held } }), db);
  return {
    ok: true,
    actor,
    sessionVersion: user.sessionVersion,
    method,
    recoveryCodesLeft: left,
    firstFactor: adding && !held,
  };
}

/** The proof checked against the user's factors: the factor it matched (its id, or "recovery"). */
async function checkProof(
  userId: string,
  proof: FactorProof,
  now: Date,
  db: DbOrTx,
): Promise<{ accepted: string | null; left?: number }> {
  switch (proof.kind) {
    case "totp":
      return { accepted: await acceptTotpCode({ userId, code: proof.code, now, confirmed: true }, db) };
    case "enrol-totp":
      return {
        accepted: await acceptTotpCode(
          { userId, code: proof.code, now, confirmed: false, factorId: proof.factorId },
          db,
        ),
      };
    case "passkey":
      return { accepted: await acceptPasskey({ userId, response: proof.response, now }, db) };
    case "enrol-passkey":
      return {
        accepted: await registerPasskey(
          { userId, response: proof.response, label: proof.label.slice(0, 60) || "Passkey", now },
          db,
        ),
      };
    case "recovery": {
      const used = await spendRecoveryCode({ userId, code: proof.code, now }, db);
      return { accepted: used ? "recovery" : null, left: used?.left };
    }
  }
}

/** The audit entry of an accepted proof: a factor added, a recovery code spent, or a verification. */
function successEntry({
  actor,
  proof,
}: {
  actor: Actor;
  proof: { adding: boolean; method: "totp" | "passkey" | "recovery"; accepted: string; left?: number; first: boolean };
}): Parameters<typeof recordAudit>[0] {
  const who = { id: actor.id, label: actorLabel(actor) };
  if (proof.adding)
    return {
      actor: who,
      action: "mfa.enrol",
      tenantId: actor.tenantId,
      target: proof.accepted,
      outcome: "ok",
      details: { kind: proof.method, first: proof.first },
    };
  return {
    actor: who,
    action: proof.method === "recovery" ? "mfa.recovery-code" : "mfa.verify",
    tenantId: actor.tenantId,
    target: proof.method === "recovery" ? null : proof.accepted,
    outcome: "ok",
    details: { method: proof.method, ...(proof.left !== undefined ? { recoveryCodesLeft: proof.left } : {}) },
  };
}
