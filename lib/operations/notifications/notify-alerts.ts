import "server-only";
// The notifier job (alerts.notify, every ALERT_NOTIFY_INTERVAL_MS on the queue): reads the alerts
// table and, per alert and enabled channel, stages what decide-notification.ts says — as a
// notify.* outbox row in the same transaction as the debounce state, so the worker sends it with
// the outbox's retries, backoff and attempt log, and nothing here waits on a receiver. It never
// writes the alerts themselves.
//
// Two notifiers at once (two workers) stay at one message: each alert × channel is decided under
// its alert_notifications row lock (the second waits, then sees the first's state), and the
// message's idempotency key is stable, so even a duplicate decision stages the same outbox row.
//
// A failing channel (its last send failed) is staged one message at a time: nothing while one
// waits, then the next one. The alerts it was not told about stay untold until it answers, when
// it hears each still-open alert once instead of every reminder it missed. A channel is never
// sent the alerts about itself (it failing, its messages given up): it cannot receive them.
import { prisma, type DbOrTx } from "../../core/db/client";
import { env } from "../../core/config/env";
import { enqueueOutbox } from "../../core/outbox/enqueue-outbox";
import { decideNotification, type NotificationState } from "./decide-notification";
import { renderNotification, type AlertRow } from "./render-message";
import { ALERT_CHANNEL_KINDS } from "./channel-fields";
import { channelOutboxSubject } from "../alerts/failed-outbox";

type NotifyAlertsResult = { staged: number; byEvent: Record<string, number> };

const BATCH = 200;

export async function notifyAlerts(
  options: { now?: Date; repeatIntervalMs?: number } = {},
  db: DbOrTx = prisma,
): Promise<NotifyAlertsResult> {
  const now = options.now ?? new Date();
  const repeatIntervalMs = options.repeatIntervalMs ?? env().ALERT_REPEAT_INTERVAL_MINUTES * 60_000;
  const channels = await db.alertChannel.findMany({
    where: { enabled: true, kind: { in: [...ALERT_CHANNEL_KINDS] } },
    orderBy: { createdAt: "asc" },
  });
  const result: NotifyAlertsResult = { staged: 0, byEvent: {} };
  const repeatCutoff = new Date(now.getTime() - repeatIntervalMs);

  for (const channel of channels) {
    const failing = channel.consecutiveFailures > 0;
    if (failing && (await hasWaitingMessage(channel.id, db))) continue;
    // A coarse filter in SQL (the rule itself is decideNotification's): alerts not resolved and
    // new to the channel (whenever they were raised), resolved since its message, raised again,
    // or due for a reminder; never one about the channel itself.
    const candidates = await db.$queryRaw<(AlertRow & { notified: boolean })[]>`
      SELECT a.id, a.kind, a.subject, a.tenant_id, a.first_seen_at, a.last_seen_at, a.count, a.state, a.details,
             n.alert_id IS NOT NULL AS notified
      FROM alerts a
      LEFT JOIN alert_notifications n ON n.alert_id = a.id AND n.channel_id = ${channel.id}
      WHERE ((n.alert_id IS NULL AND a.state <> 'resolved')
         OR (n.alert_id IS NOT NULL AND n.resolved_at IS NULL AND a.state = 'resolved')
         OR (n.resolved_at IS NOT NULL AND a.state <> 'resolved')
         OR (n.resolved_at IS NULL AND a.state = 'open' AND a.last_seen_at > n.last_seen_at
             AND n.last_sent_at <= ${repeatCutoff}::timestamptz))
        AND a.subject NOT IN (${channel.id}, ${channelOutboxSubject(channel.id)})
      ORDER BY a.last_seen_at, a.id
      LIMIT ${BATCH}`;
    for (const alert of candidates) {
      const event = await stageOne(alert, channel, now, repeatIntervalMs, db);
      if (event) {
        result.staged++;
        result.byEvent[event] = (result.byEvent[event] ?? 0) + 1;
        if (failing) break;
      }
    }
  }
  return result;
}

async function hasWaitingMessage(channelId: string, db: DbOrTx): Promise<boolean> {
  const [row] = await db.$queryRaw<{ waiting: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM outbox WHERE status = 'pending' AND kind LIKE 'notify.%'
                   AND payload->>'channelId' = ${channelId}) AS waiting`;
  return row?.waiting ?? false;
}

async function stageOne(
  alert: AlertRow,
  channel: { id: string; kind: string },
  now: Date,
  repeatIntervalMs: number,
  db: DbOrTx,
): Promise<string | null> {
  return db.$transaction(async (tx) => {
    // Lock this alert × channel: a concurrent notifier waits here, then decides on our result.
    await tx.$executeRaw`
      INSERT INTO alert_notifications (alert_id, channel_id, round, last_sent_at, last_seen_at, resolved_at)
      VALUES (${alert.id}, ${channel.id}, 0, 'epoch', 'epoch', 'epoch')
      ON CONFLICT (alert_id, channel_id) DO NOTHING`;
    const [row] = await tx.$queryRaw<
      { round: number; last_sent_at: Date; last_seen_at: Date; repeats: number; resolved_at: Date | null }[]
    >`SELECT round, last_sent_at, last_seen_at, repeats, resolved_at FROM alert_notifications
      WHERE alert_id = ${alert.id} AND channel_id = ${channel.id} FOR UPDATE`;
    // round 0 is the placeholder just inserted (or left by a run that staged nothing): no state yet.
    const state: NotificationState | null =
      !row || row.round === 0
        ? null
        : {
            round: row.round,
            lastSentAt: row.last_sent_at,
            lastSeenAt: row.last_seen_at,
            repeats: row.repeats,
            resolvedAt: row.resolved_at,
          };
    // Read the alert again under the lock: it may have moved since the candidate query.
    const [fresh] = await tx.$queryRaw<AlertRow[]>`
      SELECT id, kind, subject, tenant_id, first_seen_at, last_seen_at, count, state, details FROM alerts WHERE id = ${alert.id}`;
    if (!fresh) return null;
    const decision = decideNotification({
      alert: { id: fresh.id, state: fresh.state, lastSeenAt: fresh.last_seen_at },
      state,
      channel,
      now,
      repeatIntervalMs,
    });
    if (!decision) {
      if (!state)
        await tx.$executeRaw`DELETE FROM alert_notifications WHERE alert_id = ${alert.id} AND channel_id = ${channel.id} AND round = 0`;
      return null;
    }
    const payload = renderNotification(fresh, decision.event, {
      channelId: channel.id,
      repeats: decision.next.repeats,
      now,
    });
    await enqueueOutbox(
      {
        kind: `notify.${channel.kind}` as "notify.slack" | "notify.webhook" | "notify.email",
        tenantId: fresh.tenant_id,
        idempotencyKey: decision.idempotencyKey,
        payload,
      },
      tx,
    );
    const next = decision.next;
    await tx.$executeRaw`
      UPDATE alert_notifications SET round = ${next.round}, last_sent_at = ${next.lastSentAt}::timestamptz,
        last_seen_at = ${next.lastSeenAt}::timestamptz, repeats = ${next.repeats}, resolved_at = ${next.resolvedAt}::timestamptz
      WHERE alert_id = ${alert.id} AND channel_id = ${channel.id}`;
    return decision.event;
  });
}
