import "server-only";
// Upserts the demo accounts (demo-data.ts). Idempotent; resets a demo account's lockout. The
// staff accounts hold the demo authenticator key as their second factor, so they can sign in
// where the policy requires one (the default).
import { prisma, type DbOrTx } from "../../core/db/client";
import { DEMO_PASSWORD, DEMO_TOTP_SECRET, DEMO_USERS } from "./demo-data";
import { hashPassword } from "../../core/auth/passwords";
import { sealTotpSecret } from "../../core/auth/mfa/totp";

export async function seedDemoUsers(db: DbOrTx = prisma): Promise<number> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  for (const user of DEMO_USERS) {
    const row = await db.user.upsert({
      where: { email: user.email },
      create: { ...user, passwordHash },
      update: {
        name: user.name,
        role: user.role,
        tenantId: user.tenantId,
        passwordHash,
        failedLogins: 0,
        lockedUntil: null,
        disabledAt: null,
      },
    });
    if (user.role !== "district_admin") await enrolDemoTotp(row.id, db);
  }
  return DEMO_USERS.length;
}

/** The demo authenticator key as a confirmed factor of `userId` (kept if it is there already). */
export async function enrolDemoTotp(userId: string, db: DbOrTx = prisma): Promise<void> {
  const id = `demo-totp-${userId}`;
  const existing = await db.mfaFactor.findUnique({ where: { id }, select: { id: true } });
  if (existing) return;
  await db.mfaFactor.create({
    data: {
      id,
      userId,
      kind: "totp",
      label: "Demo authenticator",
      totpSecret: sealTotpSecret(id, DEMO_TOTP_SECRET),
      confirmedAt: new Date(),
    },
  });
}
