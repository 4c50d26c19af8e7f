import "server-only";
// What a user holds: the confirmed factors by kind and the recovery codes left. Read by the
// session loader (does this account have to prove a factor?) and by the prompts (which ways to offer).
import { prisma, type DbOrTx } from "../../db/client";

type FactorMethod = "totp" | "passkey" | "recovery";

export async function holdsFactor(userId: string, db: DbOrTx = prisma): Promise<boolean> {
  const found = await db.mfaFactor.findFirst({
    where: { userId, confirmedAt: { not: null } },
    select: { id: true },
  });
  return found !== null;
}

/** The ways this user can prove a factor now, in the order the prompt offers them. */
export async function factorMethods(userId: string, db: DbOrTx = prisma): Promise<FactorMethod[]> {
  const [kinds, codes] = await Promise.all([
    db.mfaFactor.findMany({
      where: { userId, confirmedAt: { not: null } },
      select: { kind: true },
      distinct: ["kind"],
    }),
    db.mfaRecoveryCode.count({ where: { userId, usedAt: null } }),
  ]);
  const held = new Set(kinds.map((k) => k.kind));
  return [
    ...(held.has("totp") ? (["totp"] as const) : []),
    ...(held.has("passkey") ? (["passkey"] as const) : []),
    ...(codes > 0 ? (["recovery"] as const) : []),
  ];
}
