import "server-only";
// The longest retry the provider's own delivery history shows (job provider.observe_retries, at
// the worker's start and hourly): its failed scheduled attempts over the last horizon and a day,
// grouped by event, from the first attempt to the last retry made or announced (next_retry_at).
// The longest span ever seen is kept in `settings` ("provider.observed_retry"): the retention
// rule's horizon never goes below it (lib/core/retention/retry-horizon.ts), even after the provider's
// history has moved on. A bounded read: at most MAX_PAGES pages per run.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { ObservedRetry } from "../../core/retention/retry-horizon";
import type { ProviderClient, ProviderDeliveryAttempt } from "./client";

export const OBSERVED_RETRY_SETTING = "provider.observed_retry";
const MAX_PAGES = 20;
const PAGE_SIZE = 250;
const HOUR_MS = 3_600_000;

export type RetryHistoryReader = Pick<ProviderClient, "listDeliveries">;

export function parseObservedRetry(value: unknown): ObservedRetry | null {
  const v = (value ?? {}) as Record<string, unknown>;
  if (typeof v.spanMs !== "number" || typeof v.eventId !== "string") return null;
  return {
    spanMs: v.spanMs,
    eventId: v.eventId,
    firstAttemptAt: new Date(String(v.firstAttemptAt)),
    lastRetryAt: new Date(String(v.lastRetryAt)),
    observedAt: new Date(String(v.observedAt)),
  };
}

/** The longest retry among these attempts (scheduled ones only: a manual redelivery is not a retry). */
export function longestRetry(attempts: ProviderDeliveryAttempt[], observedAt: Date): ObservedRetry | null {
  const byEvent = new Map<string, { first: Date; last: Date }>();
  for (const a of attempts) {
    if (a.trigger !== "scheduled") continue;
    const last = a.nextRetryAt && a.nextRetryAt > a.at ? a.nextRetryAt : a.at;
    const seen = byEvent.get(a.eventId);
    if (!seen) byEvent.set(a.eventId, { first: a.at, last });
    else {
      if (a.at < seen.first) seen.first = a.at;
      if (last > seen.last) seen.last = last;
    }
  }
  let best: ObservedRetry | null = null;
  for (const [eventId, { first, last }] of byEvent) {
    const spanMs = last.getTime() - first.getTime();
    if (spanMs > 0 && (!best || spanMs > best.spanMs))
      best = { spanMs, eventId, firstAttemptAt: first, lastRetryAt: last, observedAt };
  }
  return best;
}

export async function observeProviderRetries(
  options: { client: RetryHistoryReader; hookId: string; lookbackHours: number; now?: Date },
  db: DbOrTx = prisma,
): Promise<{ observed: ObservedRetry | null; raised: boolean; attemptsRead: number }> {
  const now = options.now ?? new Date();
  const attempts: ProviderDeliveryAttempt[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await options.client.listDeliveries({
      hookId: options.hookId,
      status: "failed",
      since: new Date(now.getTime() - options.lookbackHours * HOUR_MS),
      cursor,
      limit: PAGE_SIZE,
    });
    attempts.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  const observed = longestRetry(attempts, now);
  const row = await db.setting.findUnique({ where: { key: OBSERVED_RETRY_SETTING } });
  const previous = parseObservedRetry(row?.value);
  if (!observed || (previous && previous.spanMs >= observed.spanMs))
    return { observed, raised: false, attemptsRead: attempts.length };
  const value = {
    spanMs: observed.spanMs,
    eventId: observed.eventId,
    firstAttemptAt: observed.firstAttemptAt.toISOString(),
    lastRetryAt: observed.lastRetryAt.toISOString(),
    observedAt: observed.observedAt.toISOString(),
  };
  // Only ever raised: two workers observing at once keep the longer span.
  await db.$executeRaw`
    INSERT INTO settings (key, value, updated_at, updated_by)
    VALUES (${OBSERVED_RETRY_SETTING}, ${JSON.stringify(value)}::jsonb, now(), 'worker')
    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
    WHERE (settings.value->>'spanMs')::bigint IS NULL OR (settings.value->>'spanMs')::bigint < ${observed.spanMs}`;
  return { observed, raised: true, attemptsRead: attempts.length };
}
