import "server-only";
// The audit stream (docs/audit.md): every audit entry, in seq order, to each enabled audit_stream
// destination (a SIEM's HTTPS intake), signed like the JSON alert channel (Standard Webhooks, the
// destination's whsec_ secret). Batches go one after the other and the destination's cursor
// (stream_sent_seq) moves only past a batch it acknowledged with a 2xx: at least once, in order;
// a retried batch carries the same entries, each with its id, seq and chain hash for the receiver's
// deduplication. A destination that fails waits (doubling, at most MAX_BACKOFF_MS) and its
// backlog shows on Settings; appending to the log never waits on any of this (the worker sends).
import { prisma, type Db, type DbOrTx } from "../../core/db/client";
import { env } from "../../core/config/env";
import { readAuditPage } from "../../core/audit/read-audit-chain";
import { openChannelSecrets } from "../notifications/channel-secrets";
import { recordChannelAttempt } from "../notifications/channel-health";
import { postSignedWebhook } from "../notifications/send-http";

const BATCH = 100;
const BATCHES_PER_RUN = 50;
const MAX_BACKOFF_MS = 300_000;

export type StreamResult = { sent: number; failed: number };

export async function streamAuditLog(
  options: { now?: () => Date; timeoutMs?: number; batch?: number } = {},
  db: Db = prisma,
): Promise<StreamResult> {
  const now = options.now ?? (() => new Date());
  const result: StreamResult = { sent: 0, failed: 0 };
  const destinations = await db.alertChannel.findMany({ where: { kind: "audit_stream", enabled: true } });
  for (const stored of destinations) {
    if (stored.streamRetryAt && stored.streamRetryAt > now()) continue;
    const destination = openChannelSecrets(stored);
    if (!destination.secret) continue;
    let cursor = stored.streamSentSeq;
    for (let round = 0; round < BATCHES_PER_RUN; round++) {
      // Sealed entries only: one written before the chain waits for its hash (seal-audit-chain.ts).
      const entries = (await readAuditPage({ afterSeq: cursor, limit: options.batch ?? BATCH }, db)).filter(
        (entry) => entry.hash !== "",
      );
      if (entries.length === 0) break;
      const first = entries[0]!.seq;
      const last = entries[entries.length - 1]!.seq;
      try {
        await postSignedWebhook({
          url: destination.target,
          secret: destination.secret,
          messageId: `audit_${first}_${last}`,
          body: { type: "audit.entries", timestamp: now().toISOString(), data: { entries } },
          timeoutMs: options.timeoutMs ?? env().PROVIDER_TIMEOUT_MS,
        });
      } catch (error) {
        const failures = stored.consecutiveFailures + 1;
        const backoff = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** Math.min(failures - 1, 16));
        await db.alertChannel.update({
          where: { id: stored.id },
          data: { streamRetryAt: new Date(now().getTime() + backoff) },
        });
        await recordChannelAttempt(
          {
            payload: { channelId: stored.id },
            ok: false,
            error: error instanceof Error ? error.message : String(error),
            givenUp: false,
            now: now(),
          },
          db,
        );
        result.failed++;
        break;
      }
      // Only forward: a second worker that sent the same batch meanwhile leaves the cursor as it is.
      await db.$executeRaw`
        UPDATE alert_channels SET stream_sent_seq = GREATEST(stream_sent_seq, ${BigInt(last)}), stream_retry_at = NULL
        WHERE id = ${stored.id}`;
      await recordChannelAttempt(
        { payload: { channelId: stored.id }, ok: true, error: null, givenUp: false, now: now() },
        db,
      );
      stored.consecutiveFailures = 0;
      cursor = BigInt(last);
      result.sent += entries.length;
    }
  }
  return result;
}

/** Entries the destination has not acknowledged yet. */
export async function streamBacklog(sentSeq: bigint, db: DbOrTx = prisma): Promise<number> {
  const [row] = await db.$queryRaw<
    { n: bigint }[]
  >`SELECT count(*) AS n FROM audit_log WHERE seq > ${sentSeq} AND hash IS NOT NULL`;
  return Number(row?.n ?? 0);
}
