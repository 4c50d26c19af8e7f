// Audit entries for tests: written the way the app writes them (the content hash included, so the
// chain trigger takes them), at a time of the test's choosing; and the tampering a database owner
// could do, with the triggers that would refuse it switched off for the one statement.
import { auditRowOf, type AuditRowInput } from "@/lib/core/audit/audit-row";
import { prisma } from "@/lib/core/db/client";

export async function appendAuditAt(
  at: Date,
  entry: Partial<AuditRowInput> = {},
): Promise<{ id: bigint; seq: bigint }> {
  const row = auditRowOf({
    actor: { id: null, label: "support@keyhook.test" },
    action: "test.action",
    outcome: "ok",
    ...entry,
  });
  const created = await prisma.auditLog.create({
    data: {
      at,
      actorId: row.actor_id,
      actor: row.actor,
      action: row.action,
      tenantId: row.tenant_id,
      target: row.target,
      outcome: row.outcome,
      details: row.details === null ? undefined : (row.details as object),
      contentHash: row.contentHash,
    },
    select: { id: true, seq: true },
  });
  return { id: created.id, seq: created.seq! };
}

/** Runs `sql` as the owner with every trigger off (session_replication_role = replica), in one transaction. */
export async function asOwnerWithoutTriggers(...statements: string[]): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe("SET LOCAL session_replication_role = replica");
    for (const sql of statements) await tx.$executeRawUnsafe(sql);
  });
}
