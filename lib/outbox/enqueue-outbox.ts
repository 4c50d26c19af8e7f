import "server-only";
// Stages an outbound provider call in the SAME transaction as the local change that causes it.
// The worker (lib/outbox) sends it later with the stable idempotency key, so a crash between
// commit and send, or a retry, still makes exactly one effective provider call.
import { prisma, type DbOrTx } from "../db";

export type OutboxCommand =
  | { kind: "key.revoke"; payload: { tenantId: string; keyId: string } }
  | { kind: "key.issue"; payload: { tenantId: string; scopes: string[] } }
  | { kind: "key.rotate"; payload: { tenantId: string; keyId: string } };

export async function enqueueOutbox(
  options: OutboxCommand & { tenantId: string; idempotencyKey: string },
  db: DbOrTx = prisma,
): Promise<{ id: bigint; created: boolean }> {
  // ON CONFLICT keeps a double click or a retried action from staging the call twice.
  const rows = await db.$queryRaw<{ id: bigint }[]>`
    INSERT INTO outbox (tenant_id, kind, payload, idempotency_key)
    VALUES (${options.tenantId}, ${options.kind}, ${JSON.stringify(options.payload)}::jsonb, ${options.idempotencyKey})
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id`;
  if (rows[0]) return { id: rows[0].id, created: true };
  const existing = await db.outboxMessage.findUniqueOrThrow({
    where: { idempotencyKey: options.idempotencyKey },
    select: { id: true },
  });
  return { id: existing.id, created: false };
}
