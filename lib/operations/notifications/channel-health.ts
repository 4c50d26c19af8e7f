import "server-only";
// After every send of a notify.* row the outbox worker records how the channel did. A channel
// that keeps failing — ALERT_CHANNEL_FAILURE_THRESHOLD attempts in a row, or one message given up
// for good — raises the alert `channel_failing` (subject: the channel id), which the alert center
// and the Settings page show; the next delivery that gets through resolves it. A person who
// resolved it keeps it resolved while the channel keeps failing (upsert-alert.ts): a failing
// channel's next retry must not re-open it; a success in between, then new failures, does.
import { raiseAlert, resolveAlerts } from "../alerts/upsert-alert";
import { prisma, type DbOrTx } from "../../core/db/client";
import { env } from "../../core/config/env";
import { log } from "../../core/log";

export const CHANNEL_FAILING_ALERT = "channel_failing";

export async function recordChannelAttempt(
  input: { payload: unknown; ok: boolean; error: string | null; givenUp: boolean; now: Date; threshold?: number },
  db: DbOrTx = prisma,
): Promise<void> {
  const channelId = (input.payload as { channelId?: unknown } | null)?.channelId;
  if (typeof channelId !== "string") return; // an unreadable row: the outbox already failed it
  if (input.ok) {
    const [was] = await db.$queryRaw<{ failures: number }[]>`
      UPDATE alert_channels c SET consecutive_failures = 0, last_success_at = ${input.now}::timestamptz
      FROM (SELECT id, consecutive_failures AS failures FROM alert_channels WHERE id = ${channelId} FOR UPDATE) old
      WHERE c.id = old.id
      RETURNING old.failures`;
    if (was && was.failures > 0)
      // Resolves an open alert; a person's decision on one is spent (the failing stopped).
      await resolveAlerts({ kind: CHANNEL_FAILING_ALERT, subjects: [channelId], now: input.now }, db);
    return;
  }
  const [channel] = await db.$queryRaw<{ name: string; kind: string; failures: number }[]>`
    UPDATE alert_channels SET consecutive_failures = consecutive_failures + 1,
      last_failure_at = ${input.now}::timestamptz, last_error = ${input.error?.slice(0, 500) ?? null}
    WHERE id = ${channelId}
    RETURNING name, kind, consecutive_failures AS failures`;
  if (!channel) return; // deleted since the row was staged
  const threshold = input.threshold ?? env().ALERT_CHANNEL_FAILURE_THRESHOLD;
  if (channel.failures < threshold && !input.givenUp) return;
  log.warn("alert channel failing", { channel_id: channelId, failures: channel.failures, error: input.error });
  await raiseAlert(
    {
      kind: CHANNEL_FAILING_ALERT,
      subject: channelId,
      details: {
        channel: channel.name,
        channelKind: channel.kind,
        consecutiveFailures: channel.failures,
        messageGivenUp: input.givenUp,
        lastError: input.error?.slice(0, 300) ?? null,
      },
      now: input.now,
    },
    db,
  );
}
