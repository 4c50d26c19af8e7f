import "server-only";
// The append-only audit log of human actions (docs/design.md, invariant 5). Pass the transaction handle
// of the change itself so the action and its record commit together. The entry's content hash is
// computed here (lib/core/audit/audit-hash.ts); the insert's trigger gives it its place in the hash
// chain in the same statement (docs/audit.md). The chain's head row stays locked until the
// caller's transaction ends, so append as the last write of a transaction.
import { prisma, type DbOrTx } from "../db/client";
import { auditRowOf } from "./audit-row";

export type AuditActor = { id: string | null; label: string };

type AuditEntry = {
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
  const row = auditRowOf(entry);
  await db.auditLog.create({
    data: {
      actorId: row.actor_id,
      actor: row.actor,
      action: row.action,
      tenantId: row.tenant_id,
      target: row.target,
      outcome: row.outcome,
      details: row.details === null ? undefined : (row.details as object),
      contentHash: row.contentHash,
    },
  });
}
