import "server-only";
// Upserts the demo accounts (demo-users.ts). Idempotent; resets a demo account's lockout.
import { prisma, type DbOrTx } from "../db";
import { DEMO_PASSWORD, DEMO_USERS } from "./demo-users";
import { hashPassword } from "./passwords";

export async function seedDemoUsers(db: DbOrTx = prisma): Promise<number> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  for (const user of DEMO_USERS) {
    await db.user.upsert({
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
  }
  return DEMO_USERS.length;
}
