import "server-only";
// The append-only audit log of human actions (docs/design.md, invariant 5). Pass the transaction handle
// of the change itself so the action and its record commit together.
import { prisma, type DbOrTx } from "../db";

export type AuditActor = { id: string | null; label: string };

export type AuditEntry = {
  actor: AuditActor;
  /** e.g. sign-in, key.revoke, key.issue, key.rotate, delivery.replay, settings.update */
  action: string;
  tenantId?: string | null;
  target?: string | null;
  /** ok | denied | failed | a short word the action defines */
  outcome: string;
  details?: Record<string, unknown>;
};

export async function recordAudit(entry: AuditEntry, db: DbOrTx = prisma): Promise<void> {
  await db.auditLog.create({
    data: {
      actorId: entry.actor.id,
      actor: entry.actor.label,
      action: entry.action,
      tenantId: entry.tenantId ?? null,
      target: entry.target ?? null,
      outcome: entry.outcome,
      details: entry.details === undefined ? undefined : (entry.details as object),
    },
  });
}
