import "server-only";
// The provider's delivery history to our hook since a time, as events, oldest first: its attempts
// (newest first, paged by the provider's cursor) grouped by district and event id, each with one
// attempt to redeliver it by. Attempts that arrive while we page (the worker's traffic, our own
// redeliveries) land before the cursor and do not disturb it.
import type { ProviderClient } from "./client";

export type ProviderEvent = {
  tenantId: string;
  eventId: string;
  /** The newest attempt listed: what a redelivery names. */
  deliveryId: string;
  attempts: number;
  /** Some attempt was answered 2xx: the provider considers it delivered. */
  acknowledged: boolean;
  firstAttemptAt: Date;
};

const PAGE = 250;

export async function providerEventsSince(options: {
  provider: Pick<ProviderClient, "listDeliveries">;
  hookId: string;
  since: Date;
  onPage?: (attemptsSoFar: number) => void;
}): Promise<{ events: ProviderEvent[]; attempts: number }> {
  const byEvent = new Map<string, ProviderEvent>();
  let attempts = 0;
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<ProviderClient["listDeliveries"]>> = await options.provider.listDeliveries({
      hookId: options.hookId,
      since: options.since,
      cursor,
      limit: PAGE,
    });
    for (const attempt of page.items) {
      attempts++;
      const key = `${attempt.tenantId}\n${attempt.eventId}`;
      const known = byEvent.get(key);
      if (!known) {
        byEvent.set(key, {
          tenantId: attempt.tenantId,
          eventId: attempt.eventId,
          deliveryId: attempt.id,
          attempts: 1,
          acknowledged: attempt.succeeded,
          firstAttemptAt: attempt.at,
        });
        continue;
      }
      known.attempts++;
      known.acknowledged ||= attempt.succeeded;
      if (attempt.at < known.firstAttemptAt) known.firstAttemptAt = attempt.at;
    }
    options.onPage?.(attempts);
    cursor = page.nextCursor;
  } while (cursor);
  // Oldest first: redelivered in the order they first went out, most of a district's events arrive
  // in sequence and are applied as they were, rather than found stale behind a later one (the end
  // state is the same either way; the ledger reads better).
  const events = [...byEvent.values()].sort((a, b) => a.firstAttemptAt.getTime() - b.firstAttemptAt.getTime());
  return { events, attempts };
}
