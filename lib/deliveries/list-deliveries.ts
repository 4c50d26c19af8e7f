import "server-only";
// The provider's attempt history for our hook next to our own receipts, joined on event id, with
// the disagreements flagged. The provider may be down or not configured: our side still shows.
import { prisma, type DbOrTx } from "../db";
import { describeError, log } from "../log";
import { type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import type { ProviderDeliveryAttempt } from "../provider/client";
import { toAppError } from "../provider/errors";
import { getRegisteredHookId } from "../provider/webhook-registration";
import { providerForDashboard, type DeliveryProvider } from "./provider-for-dashboard";
import { isCanaryTenant } from "../readiness/canary";

export type OurReceipt = {
  id: bigint;
  receivedAt: Date;
  eventId: string | null;
  tenantId: string | null;
  webhookId: string | null;
  status: number;
  outcome: string | null;
  error: string | null;
  source: string;
  signatureVerdict: string;
};

/**
 * failed_but_applied: the provider thinks every attempt failed, yet we answered 2xx (it will retry;
 * the retry will be a duplicate). delivered_without_receipt: the provider says it delivered but we
 * hold no receipt (something between us answered for us, or our receipt was lost).
 */
export type Mismatch = "failed_but_applied" | "delivered_without_receipt";

export type DeliveryRow = {
  eventId: string;
  tenantId: string | null;
  lastSeenAt: Date;
  attempts: ProviderDeliveryAttempt[];
  receipts: OurReceipt[];
  /** We hold a stored payload for it: a local replay is possible. */
  replayable: boolean;
  mismatch: Mismatch | null;
};

export type ProviderState =
  { kind: "ok"; nextCursor: string | null } | { kind: "not_registered" } | { kind: "unreachable"; message: string };

export const DELIVERY_STATUSES = ["all", "failed", "mismatched"] as const;
export type DeliveryStatusFilter = (typeof DELIVERY_STATUSES)[number];

/** A row the provider can be asked to send again: its latest attempt, by id. */
export type RedeliverableRow = { eventId: string; tenantId: string | null; deliveryId: string };

export type DeliveriesView = {
  /** One page of the rows that pass the filters, newest first. */
  rows: DeliveryRow[];
  /** Rows passing the filters (in the fetched history) and the page shown. */
  total: number;
  page: number;
  pageCount: number;
  /** The window held more than one fetch: older rows in it are not shown (narrow the window). */
  truncated: boolean;
  /**
   * Every row passing the filters (all pages) that failed at the provider: what a bulk
   * redelivery of this list acts on. Empty when the provider's history is unknown.
   */
  redeliverable: RedeliverableRow[];
  provider: ProviderState;
  since: Date;
  until: Date;
};

export const DELIVERIES_PER_PAGE = 25;

export async function listDeliveries(
  options: {
    actor: Actor;
    since: Date;
    until: Date;
    eventId?: string;
    tenantId?: string;
    status?: DeliveryStatusFilter;
    page?: number;
    providerCursor?: string;
    provider?: DeliveryProvider;
    limit?: number;
  },
  db: DbOrTx = prisma,
): Promise<DeliveriesView> {
  authorize(options.actor, "deliveries.view");
  const limit = Math.min(options.limit ?? 250, 250);
  const { since, until } = options;

  let attempts: ProviderDeliveryAttempt[] = [];
  let provider: ProviderState;
  const hookId = await getRegisteredHookId(db);
  if (!hookId) {
    provider = { kind: "not_registered" };
  } else {
    try {
      const page = await (options.provider ?? providerForDashboard()).listDeliveries({
        hookId,
        since,
        until,
        limit,
        eventId: options.eventId,
        cursor: options.providerCursor,
      });
      attempts = options.tenantId ? page.items.filter((a) => a.tenantId === options.tenantId) : page.items;
      provider = { kind: "ok", nextCursor: page.nextCursor };
    } catch (error) {
      log.warn("provider delivery history unavailable", { error: describeError(error) });
      provider = { kind: "unreachable", message: toAppError(error).publicMessage };
    }
  }

  const receiptSelect = {
    id: true,
    receivedAt: true,
    eventId: true,
    tenantId: true,
    webhookId: true,
    status: true,
    outcome: true,
    error: true,
    source: true,
    signatureVerdict: true,
  } as const;
  const providerEventIds = [...new Set(attempts.map((a) => a.eventId))];
  const [windowReceipts, matchedReceipts] = await Promise.all([
    db.receipt.findMany({
      where: {
        receivedAt: { gte: since, lt: until },
        ...(options.tenantId ? { tenantId: options.tenantId } : {}),
        ...(options.eventId ? { OR: [{ eventId: options.eventId }, { webhookId: options.eventId }] } : {}),
      },
      orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
      take: limit,
      select: receiptSelect,
    }),
    // Our receipts for the provider's events wherever they fall: the join must not miss a receipt
    // just outside the window.
    providerEventIds.length
      ? db.receipt.findMany({
          where: { OR: [{ eventId: { in: providerEventIds } }, { webhookId: { in: providerEventIds } }] },
          take: 2000,
          select: receiptSelect,
        })
      : Promise.resolve([]),
  ]);

  const rows = new Map<string, DeliveryRow>();
  const rowFor = (eventId: string, tenantId: string | null, at: Date) => {
    let row = rows.get(eventId);
    if (!row) {
      row = { eventId, tenantId, lastSeenAt: at, attempts: [], receipts: [], replayable: false, mismatch: null };
      rows.set(eventId, row);
    }
    if (at > row.lastSeenAt) row.lastSeenAt = at;
    row.tenantId ??= tenantId;
    return row;
  };
  for (const attempt of attempts) rowFor(attempt.eventId, attempt.tenantId, attempt.at).attempts.push(attempt);
  const seen = new Set<bigint>();
  for (const receipt of [...windowReceipts, ...matchedReceipts]) {
    const key = receipt.eventId ?? receipt.webhookId;
    if (!key || seen.has(receipt.id)) continue;
    seen.add(receipt.id);
    rowFor(key, receipt.tenantId, receipt.receivedAt).receipts.push(receipt);
  }

  for (const row of rows.values()) {
    row.attempts.sort((a, b) => b.at.getTime() - a.at.getTime());
    row.receipts.sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime());
    row.mismatch = mismatchOf(row, provider.kind === "ok");
  }
  // The readiness canary's deliveries are the check's business (Readiness page), not a district's.
  for (const [eventId, row] of rows) if (isCanaryTenant(row.tenantId)) rows.delete(eventId);
  const providerKnown = provider.kind === "ok";
  const matching = [...rows.values()]
    .filter((row) => !options.tenantId || row.tenantId === options.tenantId)
    .filter((row) =>
      options.status === "failed"
        ? isFailed(row, providerKnown)
        : options.status === "mismatched"
          ? row.mismatch !== null
          : true,
    )
    .sort((a, b) => b.lastSeenAt.getTime() - a.lastSeenAt.getTime());
  const pageCount = Math.max(1, Math.ceil(matching.length / DELIVERIES_PER_PAGE));
  const page = Math.min(Math.max(1, Math.floor(options.page ?? 1)), pageCount);
  const truncated = (provider.kind === "ok" && provider.nextCursor !== null) || windowReceipts.length >= limit;
  // Replayable: only the rows shown need to know (one page, not the whole window's claims).
  const shown = matching.slice((page - 1) * DELIVERIES_PER_PAGE, page * DELIVERIES_PER_PAGE);
  const claims = shown.length
    ? await db.processedEvent.findMany({
        where: { eventId: { in: shown.map((row) => row.eventId) }, payload: { not: { equals: null } } },
        select: { eventId: true, tenantId: true },
      })
    : [];
  const stored = new Set(claims.map((c) => `${c.tenantId}\u0000${c.eventId}`));
  for (const row of shown) row.replayable = stored.has(`${row.tenantId}\u0000${row.eventId}`);
  const redeliverable = providerKnown
    ? matching
        .filter((row) => row.attempts.length > 0 && isFailed(row, true))
        .map((row) => ({ eventId: row.eventId, tenantId: row.tenantId, deliveryId: row.attempts[0]!.id }))
    : [];
  return {
    rows: shown,
    redeliverable,
    total: matching.length,
    page,
    pageCount,
    truncated,
    provider,
    since,
    until,
  };
}

/** Failed: the provider has attempts and none succeeded; without the provider's view, we never answered 2xx. */
export function isFailed(row: Pick<DeliveryRow, "attempts" | "receipts">, providerKnown: boolean): boolean {
  if (providerKnown && row.attempts.length > 0) return !row.attempts.some((a) => a.succeeded);
  return !row.receipts.some((r) => r.status >= 200 && r.status < 300);
}

export function mismatchOf(row: Pick<DeliveryRow, "attempts" | "receipts">, providerKnown: boolean): Mismatch | null {
  if (!providerKnown || row.attempts.length === 0) return null;
  const providerSucceeded = row.attempts.some((a) => a.succeeded);
  const weAnsweredOk = row.receipts.some((r) => r.status >= 200 && r.status < 300);
  if (!providerSucceeded && weAnsweredOk) return "failed_but_applied";
  if (providerSucceeded && row.receipts.length === 0) return "delivered_without_receipt";
  return null;
}
