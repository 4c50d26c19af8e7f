import "server-only";
// A platform admin resets another person's second factors (lost phone, lost key, no recovery
// codes left): every factor and recovery code goes, every session of theirs ends at once, and
// their next sign-in takes them to enrolment. Never one's own: that takes a factor or a recovery
// code (Account security), so a stolen admin session cannot strip its own account.
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { endAllSessions } from "../../core/auth/load-actor";

export async function resetUserFactors(
  options: { actor: Actor; userId: string },
  db: DbOrTx = prisma,
): Promise<{ email: string; removed: number }> {
  authorize(options.actor, "users.manage");
  if (options.userId === options.actor.id)
    throw new AppError(
      "forbidden",
      "your own factors are changed on Account security, with a factor or a recovery code",
    );
  const run = async (tx: DbOrTx) => {
    const user = await tx.user.findUnique({ where: { id: options.userId }, select: { id: true, email: true } });
    if (!user) throw new AppError("not_found", "not found");
    const removed = await tx.mfaFactor.deleteMany({ where: { userId: user.id } });
    await tx.mfaRecoveryCode.deleteMany({ where: { userId: user.id } });
    await tx.mfaChallenge.deleteMany({ where: { userId: user.id } });
    await endAllSessions(user.id, tx);
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "mfa.reset",
        tenantId: null,
        target: user.email,
        outcome: "ok",
        details: { factorsRemoved: removed.count },
      },
      tx,
    );
    return { email: user.email, removed: removed.count };
  };
  const client = db as { $transaction?: unknown };
  return typeof client.$transaction === "function" ? (db as typeof prisma).$transaction(run) : run(db);
}
