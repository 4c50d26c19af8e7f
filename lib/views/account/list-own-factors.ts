import "server-only";
// Account security: the signed-in person's own factors and recovery codes (never a secret).
import { prisma, type DbOrTx } from "../../core/db/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { env } from "../../core/config/env";
import { factorRequired } from "../../core/auth/mfa/mfa-policy";
import { relyingParty } from "../../core/auth/mfa/passkeys";

type OwnFactor = { id: string; kind: string; label: string; createdAt: Date; lastUsedAt: Date | null };

export async function listOwnFactors(
  options: { actor: Actor },
  db: DbOrTx = prisma,
): Promise<{
  factors: OwnFactor[];
  recoveryCodesLeft: number;
  recoveryCodesIssued: boolean;
  required: boolean;
  passkeysAvailable: boolean;
}> {
  authorize(options.actor, "account.view");
  const userId = options.actor.id;
  const [factors, left, issued] = await Promise.all([
    db.mfaFactor.findMany({
      where: { userId, confirmedAt: { not: null } },
      orderBy: { createdAt: "asc" },
      select: { id: true, kind: true, label: true, createdAt: true, lastUsedAt: true },
    }),
    db.mfaRecoveryCode.count({ where: { userId, usedAt: null } }),
    db.mfaRecoveryCode.count({ where: { userId } }),
  ]);
  return {
    factors,
    recoveryCodesLeft: left,
    recoveryCodesIssued: issued > 0,
    required: factorRequired(options.actor.role, env().MFA_REQUIRED_ROLES),
    passkeysAvailable: relyingParty() !== null,
  };
}
