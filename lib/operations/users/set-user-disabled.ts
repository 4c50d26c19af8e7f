import "server-only";
// Disable and re-enable an account. A disabled user keeps their row (the audit log names them)
// but loses access on their next request: loadActor re-reads the user every time.
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { findUserOrThrow } from "./user-fields";

type DisabledChange = { userId: string; email: string; changed: boolean };

async function setDisabled(
  options: { actor: Actor; userId: string; disabled: boolean },
  db: DbOrTx,
): Promise<DisabledChange> {
  authorize(options.actor, "users.manage");
  // Disabling yourself would end your own session at once; if you were the last platform admin
  // nobody could re-enable anyone. Another admin must do it.
  if (options.disabled && options.userId === options.actor.id)
    throw new AppError("conflict", "you cannot disable your own account");
  return db.$transaction(async (tx) => {
    const user = await findUserOrThrow(options.userId, tx);
    // Conditional, so a repeated or concurrent click reports "already" instead of moving the date.
    const updated = await tx.user.updateMany({
      where: { id: user.id, disabledAt: options.disabled ? null : { not: null } },
      data: { disabledAt: options.disabled ? new Date() : null },
    });
    const changed = updated.count === 1;
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: options.disabled ? "user.disable" : "user.enable",
        tenantId: user.tenantId,
        target: user.email,
        outcome: changed ? "ok" : options.disabled ? "already_disabled" : "already_enabled",
        details: { userId: user.id },
      },
      tx,
    );
    return { userId: user.id, email: user.email, changed };
  });
}

export function disableUser(options: { actor: Actor; userId: string }, db: DbOrTx = prisma): Promise<DisabledChange> {
  return setDisabled({ ...options, disabled: true }, db);
}

export function enableUser(options: { actor: Actor; userId: string }, db: DbOrTx = prisma): Promise<DisabledChange> {
  return setDisabled({ ...options, disabled: false }, db);
}
