import "server-only";
// What a person does with their own factors from Account security (the action wrapper has asked
// for a fresh factor first when they hold one): start an authenticator app, register a passkey,
// remove a factor, replace the recovery codes. Confirming a new factor is a proof like any other
// (prove-factor.ts). Every change is audited.
import QRCode from "qrcode";
import { prisma, type DbOrTx } from "../../db/client";
import { env } from "../../config/env";
import { AppError } from "../../errors";
import { recordAudit } from "../../audit/record-audit";
import { auditActor, type Actor } from "../actor";
import { authorize } from "../permissions";
import { factorRequired } from "./mfa-policy";
import { passkeyRegistrationOptions, relyingParty } from "./passkeys";
import { issueRecoveryCodes } from "./recovery-codes";
import { newTotpSecret, sealTotpSecret, totpUri } from "./totp";
import { randomUUID } from "node:crypto";

/** More than anyone needs; keeps a runaway client from filling the table. */
const MAX_FACTORS = 10;

async function assertRoom(userId: string, db: DbOrTx): Promise<void> {
  const held = await db.mfaFactor.count({ where: { userId, confirmedAt: { not: null } } });
  if (held >= MAX_FACTORS) throw new AppError("conflict", `you hold ${MAX_FACTORS} factors already: remove one first`);
}

/** A new authenticator-app secret, not counting until its first code confirms it (prove-factor.ts). */
export async function startTotpEnrolment(
  options: { actor: Actor },
  db: DbOrTx = prisma,
): Promise<{ factorId: string; secret: string; uri: string; qrSvg: string }> {
  authorize(options.actor, "account.factors");
  const userId = options.actor.id;
  await assertRoom(userId, db);
  const secret = newTotpSecret();
  const id = randomUUID();
  // One enrolment in progress at a time: an abandoned one is replaced.
  await db.mfaFactor.deleteMany({ where: { userId, kind: "totp", confirmedAt: null } });
  await db.mfaFactor.create({
    data: { id, userId, kind: "totp", label: "Authenticator app", totpSecret: sealTotpSecret(id, secret) },
  });
  const uri = totpUri({ secret, email: options.actor.email });
  const qrSvg = await QRCode.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  return { factorId: id, secret, uri, qrSvg };
}

export async function startPasskeyEnrolment(options: { actor: Actor }, db: DbOrTx = prisma): Promise<string> {
  authorize(options.actor, "account.factors");
  if (!relyingParty())
    throw new AppError("unavailable", "passkeys need the dashboard's public URL (NEXTAUTH_URL) with a host name");
  await assertRoom(options.actor.id, db);
  return JSON.stringify(await passkeyRegistrationOptions({ userId: options.actor.id, email: options.actor.email }, db));
}

/** Removes one of your factors; never the last one your role requires (add another first). */
export async function removeOwnFactor(
  options: { actor: Actor; factorId: string },
  db: DbOrTx = prisma,
): Promise<{ label: string; left: number }> {
  authorize(options.actor, "account.factors");
  const userId = options.actor.id;
  const client = db as { $transaction?: unknown };
  return typeof client.$transaction === "function" ? (db as typeof prisma).$transaction(remove) : remove(db);

  async function remove(tx: DbOrTx) {
    // Serialises removals of one user's factors, so two at once cannot both leave "one other".
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
    const factor = await tx.mfaFactor.findFirst({ where: { id: options.factorId, userId } });
    if (!factor) throw new AppError("not_found", "not found");
    const others = await tx.mfaFactor.count({ where: { userId, confirmedAt: { not: null }, id: { not: factor.id } } });
    if (others === 0 && factor.confirmedAt && factorRequired(options.actor.role, env().MFA_REQUIRED_ROLES))
      throw new AppError("conflict", "your role must have a second factor: add another one before removing this one");
    await tx.mfaFactor.delete({ where: { id: factor.id } });
    // Without a factor the recovery codes recover nothing.
    if (others === 0) await tx.mfaRecoveryCode.deleteMany({ where: { userId } });
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "mfa.remove",
        tenantId: options.actor.tenantId,
        target: factor.id,
        outcome: "ok",
        details: { kind: factor.kind, label: factor.label, factorsLeft: others },
      },
      tx,
    );
    return { label: factor.label, left: others };
  }
}

/** Ten new recovery codes, replacing the old ones: returned once, for the person to write down. */
export async function renewRecoveryCodes(options: { actor: Actor }, db: DbOrTx = prisma): Promise<string[]> {
  authorize(options.actor, "account.factors");
  const held = await db.mfaFactor.count({ where: { userId: options.actor.id, confirmedAt: { not: null } } });
  if (held === 0) throw new AppError("conflict", "add a second factor first: recovery codes stand in for one");
  const codes = await issueRecoveryCodes(options.actor.id, db);
  await recordAudit(
    {
      actor: auditActor(options.actor),
      action: "mfa.recovery-codes",
      tenantId: options.actor.tenantId,
      outcome: "ok",
      details: { issued: codes.length },
    },
    db,
  );
  return codes;
}
