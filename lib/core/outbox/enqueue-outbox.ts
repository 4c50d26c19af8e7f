import "server-only";
// Stages an outbound call in the SAME transaction as the local change that causes it: a provider
// call (key.*), or an alert notification to a channel (notify.*, no district). The worker
// (lib/outbox) sends it later with the stable idempotency key, so a crash between commit and
// send, or a retry, still makes exactly one effective call.
//
// The same statement queues the coalescing "drain the outbox" job (lib/jobs): it commits with the
// row, and its NOTIFY wakes a listening worker at once. A job lost anyway (say, a queue wiped by
// hand) is covered by the drain's cron safety net every minute.
import { prisma, type DbOrTx } from "../db/client";
import { OUTBOX_DRAIN_KEY } from "../queue/job-names";
import type { AuditActor } from "../audit/record-audit";
import type { NotificationPayload } from "./notification-payload";

type OutboxCommand =
  | { kind: "key.revoke"; tenantId: string; payload: { tenantId: string; keyId: string } }
  | { kind: "key.issue"; tenantId: string; payload: { tenantId: string; scopes: string[] } }
  | { kind: "key.rotate"; tenantId: string; payload: { tenantId: string; keyId: string } }
  | { kind: "notify.slack" | "notify.webhook" | "notify.email"; tenantId: string | null; payload: NotificationPayload };

export async function enqueueOutbox(
  options: OutboxCommand & {
    idempotencyKey: string;
    /** The person who asked (a provider call): the audit row of the provider's answer names them. */
    requestedBy?: AuditActor;
  },
  db: DbOrTx = prisma,
): Promise<{ id: bigint; created: boolean }> {
  // ON CONFLICT keeps a double click, a retried action or a second notifier from staging it twice.
  const rows = await db.$queryRaw<{ id: bigint }[]>`
    INSERT INTO outbox (tenant_id, kind, payload, idempotency_key, requested_by_id, requested_by)
    VALUES (${options.tenantId}, ${options.kind}, ${JSON.stringify(options.payload)}::jsonb, ${options.idempotencyKey},
            ${options.requestedBy?.id ?? null}, ${options.requestedBy?.label ?? null})
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id, (SELECT 1 FROM graphile_worker.add_job('outbox.drain', job_key => ${OUTBOX_DRAIN_KEY}::text)) AS woke`;
  if (rows[0]) return { id: rows[0].id, created: true };
  const existing = await db.outboxMessage.findUniqueOrThrow({
    where: { idempotencyKey: options.idempotencyKey },
    select: { id: true },
  });
  return { id: existing.id, created: false };
}
