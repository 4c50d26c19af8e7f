import "server-only";
// Outbox rows given up for good (status failed) are a person's to look at: the sweep raises
// `outbox_failed` for them, and a person's decision on that alert settles them, after which they
// retire with the purge (docs/retention.md, docs/decisions/0036).
//   - A provider call (key.*): one alert per row. It never goes by itself: the key may still be
//     live at the provider. "Send again" puts it back in the queue under its idempotency key.
//   - Alert notifications: one alert per channel, counting its given-up messages (a dead
//     channel's messages collapse into one). They retire OUTBOX_RETENTION_DAYS after they were
//     given up even if nobody decides: the alerts they carried are on the Alerts page anyway.
import type { DbOrTx, Tx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { enqueueJob } from "../../core/queue/enqueue-job";
import { OUTBOX_DRAIN_KEY } from "../../core/queue/job-names";
import { CONDITION_ITEMS_CAP, syncConditionAlerts, type ConditionItem } from "./sync-condition-alerts";

export const OUTBOX_FAILED_KIND = "outbox_failed";

/** The alert of one failed provider call. */
const providerCallSubject = (outboxId: bigint | string) => `outbox/${outboxId}`;
/** The alert of a channel's given-up notifications. */
export const channelOutboxSubject = (channelId: string) => `outbox/channel/${channelId}`;

const CHANNEL_SUBJECT = /^outbox\/channel\/(.+)$/;
const CALL_SUBJECT = /^outbox\/(\d{1,19})$/;

type ChannelGroup = {
  channel_id: string;
  name: string | null;
  kind: string | null;
  messages: number;
  first_failed: Date;
  last_failed: Date;
  last_error: string | null;
  titles: string[];
};

export async function sweepFailedOutbox(now: Date, db: DbOrTx): Promise<{ raised: number; resolved: number }> {
  const calls = await db.outboxMessage.findMany({
    where: { status: "failed", settledAt: null, kind: { startsWith: "key." } },
    select: {
      id: true,
      tenantId: true,
      kind: true,
      payload: true,
      attempts: true,
      lastError: true,
      result: true,
      createdAt: true,
    },
    orderBy: { id: "asc" },
    take: CONDITION_ITEMS_CAP,
  });
  const channels = await db.$queryRaw<ChannelGroup[]>`
    SELECT o.payload->>'channelId' AS channel_id, c.name, c.kind, count(*)::int AS messages,
           min(o.failed_at) AS first_failed, max(o.failed_at) AS last_failed,
           (array_agg(o.last_error ORDER BY o.failed_at DESC NULLS LAST, o.id DESC))[1] AS last_error,
           (array_agg(o.payload->>'title' ORDER BY o.failed_at DESC NULLS LAST, o.id DESC))[1:5] AS titles
    FROM outbox o LEFT JOIN alert_channels c ON c.id = o.payload->>'channelId'
    WHERE o.status = 'failed' AND o.settled_at IS NULL AND o.kind LIKE 'notify.%'
    GROUP BY 1, 2, 3
    ORDER BY 1
    LIMIT ${CONDITION_ITEMS_CAP}`;
  const items: ConditionItem[] = [
    ...calls.map((row) => ({
      subject: providerCallSubject(row.id),
      tenantId: row.tenantId,
      details: {
        outbox_id: row.id.toString(),
        tenant_id: row.tenantId,
        command: row.kind,
        payload: row.payload,
        attempts: row.attempts,
        last_error: row.lastError,
        // The provider's answer as facts (process-outbox.ts): a refusal says why in its words.
        provider_answer: row.result,
        created_at: row.createdAt.toISOString(),
        fix:
          "the provider never confirmed this call, and it is not retried any more: check the key at the provider. " +
          "Send again retries this very call under its idempotency key (a call the provider already carried out " +
          "is answered with its first result, never done twice); resolve it once you have dealt with it there.",
      },
    })),
    ...channels.map((group) => {
      const name = group.name === null ? "a deleted channel" : `"${group.name}"`;
      return {
        subject: channelOutboxSubject(group.channel_id),
        tenantId: null,
        details: {
          channel_id: group.channel_id,
          channel: group.name,
          channel_kind: group.kind,
          messages: group.messages,
          first_failed_at: group.first_failed?.toISOString() ?? null,
          last_failed_at: group.last_failed?.toISOString() ?? null,
          last_error: group.last_error,
          latest_titles: group.titles,
          fix:
            `${group.messages} alert message(s) to ${name} were given up: the channel did not answer. ` +
            "The alerts they carried are on this page. Fix or pause the channel on Settings (Send a test checks it); " +
            "resolving this alert clears these messages, which otherwise retire after OUTBOX_RETENTION_DAYS.",
        },
      };
    }),
  ];
  return syncConditionAlerts(
    {
      kind: OUTBOX_FAILED_KIND,
      now,
      complete: calls.length < CONDITION_ITEMS_CAP && channels.length < CONDITION_ITEMS_CAP,
      items,
    },
    db,
  );
}

/**
 * A person decided on an outbox_failed alert: the failed rows it is about are settled (no longer
 * a condition; the purge retires them after OUTBOX_RETENTION_DAYS). Returns how many.
 */
export async function settleFailedOutbox(tx: Tx, subject: string, now: Date): Promise<number> {
  const channel = CHANNEL_SUBJECT.exec(subject);
  if (channel)
    return tx.$executeRaw`
      UPDATE outbox SET settled_at = ${now}::timestamptz
      WHERE status = 'failed' AND settled_at IS NULL AND kind LIKE 'notify.%' AND payload->>'channelId' = ${channel[1]}`;
  const call = CALL_SUBJECT.exec(subject);
  if (!call) return 0;
  return (
    await tx.outboxMessage.updateMany({
      where: { id: BigInt(call[1]!), status: "failed", settledAt: null },
      data: { settledAt: now },
    })
  ).count;
}

/** The failed provider call an alert is about, back in the queue (attempts start again). */
export async function sendFailedCallAgain(tx: Tx, subject: string, now: Date): Promise<{ outboxId: string }> {
  const call = CALL_SUBJECT.exec(subject);
  if (!call) throw new AppError("bad_request", "This alert names no provider call to send again.");
  const id = BigInt(call[1]!);
  const updated = await tx.outboxMessage.updateMany({
    where: { id, status: "failed" },
    data: { status: "pending", attempts: 0, nextAttemptAt: now, failedAt: null, settledAt: null, lastError: null },
  });
  if (updated.count === 0) throw new AppError("conflict", "This call is no longer failed: nothing to send again.");
  // Commits with the row: the worker's drain starts at once (enqueue-outbox.ts does the same).
  await enqueueJob({ task: "outbox.drain", jobKey: OUTBOX_DRAIN_KEY }, tx);
  return { outboxId: id.toString() };
}
