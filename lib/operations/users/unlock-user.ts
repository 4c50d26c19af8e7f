import "server-only";
// Clears the sign-in backoff (sign-in-throttle.ts) for a user who is waiting it out, e.g. after
// an admin has confirmed they are who they say on the phone.
import { prisma, type DbOrTx } from "../../core/db/client";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { findUserOrThrow } from "./user-fields";

export async function unlockUser(
  options: { actor: Actor; userId: string },
  db: DbOrTx = prisma,
): Promise<{ userId: string; email: string }> {
  authorize(options.actor, "users.manage");
  return db.$transaction(async (tx) => {
    const user = await findUserOrThrow(options.userId, tx);
    await tx.user.update({ where: { id: user.id }, data: { failedLogins: 0, lockedUntil: null } });
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "user.unlock",
        tenantId: user.tenantId,
        target: user.email,
        outcome: "ok",
        details: {
          userId: user.id,
          failedLogins: user.failedLogins,
          lockedUntil: user.lockedUntil?.toISOString() ?? null,
        },
      },
      tx,
    );
    return { userId: user.id, email: user.email };
  });
}
