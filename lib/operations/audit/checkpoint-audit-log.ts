import "server-only";
// The worker's hourly checkpoint (docs/audit.md): seal what predates the chain if anything does,
// sign a checkpoint of the chain as it stands, and send every recent checkpoint (the purge's too)
// to each enabled alert channel that keeps a copy, through the outbox: one message per checkpoint
// and channel (a stable idempotency key), so a copy lives outside the database.
import { prisma, type Db } from "../../core/db/client";
import { enqueueOutbox } from "../../core/outbox/enqueue-outbox";
import { sealAuditChain } from "../../core/audit/seal-audit-chain";
import { signAuditCheckpoint, type CheckpointReason } from "../../core/audit/sign-checkpoint";
import { parseCheckpointBody } from "../../core/audit/audit-checkpoint";

/** Checkpoints this recent are (re)offered to the channels; older ones were offered before. */
const DISTRIBUTE_WITHIN_MS = 48 * 3_600_000;

export async function checkpointAuditLog(
  options: { reason?: CheckpointReason; now?: Date } = {},
  db: Db = prisma,
): Promise<{ sealed: number; checkpointId: bigint; staged: number }> {
  const now = options.now ?? new Date();
  const { sealed } = await sealAuditChain(db);
  const signed = await db.$transaction((tx) =>
    signAuditCheckpoint({ reason: options.reason ?? "hourly", now }, (sql, values = []) =>
      tx.$queryRawUnsafe(sql, ...values),
    ),
  );
  const staged = await distributeCheckpoints({ now }, db);
  return { sealed, checkpointId: signed.id, staged };
}

async function distributeCheckpoints(options: { now: Date }, db: Db = prisma): Promise<number> {
  const channels = await db.alertChannel.findMany({
    where: { enabled: true, receivesCheckpoints: true, kind: { in: ["slack", "webhook", "email"] } },
    select: { id: true, kind: true },
  });
  if (channels.length === 0) return 0;
  const recent = await db.auditCheckpoint.findMany({
    where: { at: { gte: new Date(options.now.getTime() - DISTRIBUTE_WITHIN_MS) } },
    orderBy: { id: "asc" },
  });
  let staged = 0;
  for (const checkpoint of recent) {
    const body = parseCheckpointBody(checkpoint.body);
    if (typeof body === "string") continue;
    const title = `[Keyhook] Audit checkpoint ${checkpoint.id}: ${BigInt(body.seq) - BigInt(body.first_seq) + 1n} entries up to seq ${body.seq}`;
    const text = [
      title,
      `Signed ${body.at} with key "${body.key_id}" (${body.reason}). Keep this message: it lets anyone check the audit log later (npm run audit:verify).`,
      JSON.stringify({ id: checkpoint.id.toString(), body: checkpoint.body, signature: checkpoint.signature }),
    ].join("\n");
    for (const channel of channels) {
      const { created } = await enqueueOutbox(
        {
          kind: `notify.${channel.kind}` as "notify.slack" | "notify.webhook" | "notify.email",
          tenantId: null,
          idempotencyKey: `checkpoint:${channel.id}:${checkpoint.id}`,
          payload: {
            channelId: channel.id,
            event: "audit.checkpoint",
            title,
            text,
            checkpoint: { id: checkpoint.id.toString(), body: checkpoint.body, signature: checkpoint.signature },
          },
        },
        db,
      );
      if (created) staged++;
    }
  }
  return staged;
}
