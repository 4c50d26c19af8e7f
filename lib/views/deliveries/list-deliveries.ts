import "server-only";
// The provider's attempt history for our hook next to our own receipts, joined on event id, with
// the disagreements flagged. The provider may be down or not configured: our side still shows.
import { prisma, type DbOrTx } from "../../core/db/client";
import { describeError, log } from "../../core/log";
import { type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import type { ProviderDeliveryAttempt } from "../../operations/provider/client";
import { toAppError } from "../../operations/provider/errors";
import { getRegisteredHookId } from "../../operations/provider/webhook-registration";
import { providerForDashboard, type DeliveryProvider } from "../../operations/provider/provider-for-dashboard";
import { districtScope, inScope, tenantOrNoneWhere, type DistrictScope } from "../../core/tenancy/district-scope";

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
 * failed_but_answered: the provider thinks every attempt failed, yet we answered 2xx (it will retry;
 * the retry will be a duplicate); `answered` says what that answer was (applied, stale …).
 * delivered_without_receipt: the provider says it delivered but we hold no receipt (something
 * between us answered for us, or our receipt was lost).
 * answer_not_received: our receipts hold more 2xx answers to the provider's attempts than the
 * provider recorded: an answer lost on the way, or a commit confirmed after we had answered 503
 * on a primary lost before it could say so (docs/design.md, "A COMMIT that outlives its deadline").
 */
type Mismatch = "failed_but_answered" | "delivered_without_receipt" | "answer_not_received";

export type DeliveryRow = {
  eventId: string;
  tenantId: string | null;
  lastSeenAt: Date;
  attempts: ProviderDeliveryAttempt[];
  receipts: OurReceipt[];
  /** We hold a stored payload for it: a local replay is possible. */
  replayable: boolean;
  /** Its claim in the ledger (the event's page), or null: refused before it was claimed. */
  ledgerId: string | null;
  mismatch: Mismatch | null;
  /** Our 2xx answer the provider never heard (failed_but_answered): its status and outcome. */
  answered: { status: number; outcome: string | null } | null;
};

type ProviderState =
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

const DELIVERIES_PER_PAGE = 25;

type ListDeliveriesOptions = {
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
};

export async function listDeliveries(options: ListDeliveriesOptions, db: DbOrTx = prisma): Promise<DeliveriesView> {
  authorize(options.actor, "deliveries.view");
  const scope = districtScope(options.actor, options.tenantId);
  const limit = Math.min(options.limit ?? 250, 250);
  const { since, until } = options;
  const { attempts, provider } = await providerHistory(options, scope, limit, db);
  const providerKnown = provider.kind === "ok";
  const { windowReceipts, matchedReceipts } = await readReceipts(options, scope, limit, attempts, db);
  const rows = joinOnEventId(attempts, [...windowReceipts, ...matchedReceipts]);
  for (const row of rows) flagMismatch(row, providerKnown);
  // A row the provider or a matched receipt placed outside the scope (the readiness canary's, whose
  // deliveries are the Readiness page's business, or another district's) is not listed.
  const matching = rows
    .filter((row) => inScope(scope, row.tenantId) && passesStatusFilter(row, options.status, providerKnown))
    .sort((a, b) => b.lastSeenAt.getTime() - a.lastSeenAt.getTime());
  const pageCount = Math.max(1, Math.ceil(matching.length / DELIVERIES_PER_PAGE));
  const page = Math.min(Math.max(1, Math.floor(options.page ?? 1)), pageCount);
  const truncated = (provider.kind === "ok" && provider.nextCursor !== null) || windowReceipts.length >= limit;
  const shown = matching.slice((page - 1) * DELIVERIES_PER_PAGE, page * DELIVERIES_PER_PAGE);
  await markClaims(shown, db);
  return {
    rows: shown,
    redeliverable: providerKnown ? redeliverableRows(matching) : [],
    total: matching.length,
    page,
    pageCount,
    truncated,
    provider,
    since,
    until,
  };
}

/** The provider's attempts in the window, in scope; the provider may be down or our hook not registered. */
async function providerHistory(
  options: ListDeliveriesOptions,
  scope: DistrictScope,
  limit: number,
  db: DbOrTx,
): Promise<{ attempts: ProviderDeliveryAttempt[]; provider: ProviderState }> {
  const hookId = await getRegisteredHookId(db);
  if (!hookId) return { attempts: [], provider: { kind: "not_registered" } };
  try {
    const page = await (options.provider ?? providerForDashboard()).listDeliveries({
      hookId,
      since: options.since,
      until: options.until,
      limit,
      eventId: options.eventId,
      cursor: options.providerCursor,
    });
    return {
      attempts: page.items.filter((attempt) => inScope(scope, attempt.tenantId)),
      provider: { kind: "ok", nextCursor: page.nextCursor },
    };
  } catch (error) {
    log.warn("provider delivery history unavailable", { error: describeError(error) });
    return { attempts: [], provider: { kind: "unreachable", message: toAppError(error).publicMessage } };
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

/**
 * Our receipts in the window, and our receipts for the provider's events wherever they fall: the
 * join must not miss a receipt just outside the window.
 */
async function readReceipts(
  options: ListDeliveriesOptions,
  scope: DistrictScope,
  limit: number,
  attempts: ProviderDeliveryAttempt[],
  db: DbOrTx,
): Promise<{ windowReceipts: OurReceipt[]; matchedReceipts: OurReceipt[] }> {
  const providerEventIds = [...new Set(attempts.map((a) => a.eventId))];
  const [windowReceipts, matchedReceipts] = await Promise.all([
    db.receipt.findMany({
      where: {
        receivedAt: { gte: options.since, lt: options.until },
        AND: [
          tenantOrNoneWhere(scope),
          options.eventId ? { OR: [{ eventId: options.eventId }, { webhookId: options.eventId }] } : {},
        ],
      },
      orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
      take: limit,
      select: receiptSelect,
    }),
    providerEventIds.length
      ? db.receipt.findMany({
          where: { OR: [{ eventId: { in: providerEventIds } }, { webhookId: { in: providerEventIds } }] },
          take: 2000,
          select: receiptSelect,
        })
      : Promise.resolve([]),
  ]);
  return { windowReceipts, matchedReceipts };
}

/** One row per event id: the provider's attempts and our receipts for it (each receipt once). */
function joinOnEventId(attempts: ProviderDeliveryAttempt[], receipts: OurReceipt[]): DeliveryRow[] {
  const rows = new Map<string, DeliveryRow>();
  const rowFor = (eventId: string, tenantId: string | null, at: Date) => {
    let row = rows.get(eventId);
    if (!row) {
      row = {
        eventId,
        tenantId,
        lastSeenAt: at,
        attempts: [],
        receipts: [],
        replayable: false,
        ledgerId: null,
        mismatch: null,
        answered: null,
      };
      rows.set(eventId, row);
    }
    if (at > row.lastSeenAt) row.lastSeenAt = at;
    row.tenantId ??= tenantId;
    return row;
  };
  for (const attempt of attempts) rowFor(attempt.eventId, attempt.tenantId, attempt.at).attempts.push(attempt);
  const seen = new Set<bigint>();
  for (const receipt of receipts) {
    const key = receipt.eventId ?? receipt.webhookId;
    if (!key || seen.has(receipt.id)) continue;
    seen.add(receipt.id);
    rowFor(key, receipt.tenantId, receipt.receivedAt).receipts.push(receipt);
  }
  return [...rows.values()];
}

/** Newest first on both sides, and the disagreement between them, with our answer the provider missed. */
function flagMismatch(row: DeliveryRow, providerKnown: boolean): void {
  row.attempts.sort((a, b) => b.at.getTime() - a.at.getTime());
  row.receipts.sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime());
  row.mismatch = mismatchOf(row, providerKnown);
  if (row.mismatch === "failed_but_answered") {
    const ok = row.receipts.find((r) => r.status >= 200 && r.status < 300)!;
    row.answered = { status: ok.status, outcome: ok.outcome };
  }
}

function passesStatusFilter(
  row: DeliveryRow,
  status: DeliveryStatusFilter | undefined,
  providerKnown: boolean,
): boolean {
  return status === "failed" ? isFailed(row, providerKnown) : status === "mismatched" ? row.mismatch !== null : true;
}

/** Claimed, and replayable: only the rows shown need to know (one page, not the whole window's claims). */
async function markClaims(shown: DeliveryRow[], db: DbOrTx): Promise<void> {
  const claims = shown.length
    ? await db.$queryRaw<{ id: bigint; event_id: string; tenant_id: string; stored: boolean }[]>`
        SELECT id, event_id, tenant_id, payload IS NOT NULL AS stored FROM processed_events
        WHERE event_id = ANY(${shown.map((row) => row.eventId)}::text[])`
    : [];
  const claimOf = new Map(claims.map((c) => [`${c.tenant_id}\u0000${c.event_id}`, c]));
  for (const row of shown) {
    const claim = claimOf.get(`${row.tenantId}\u0000${row.eventId}`);
    row.replayable = claim?.stored ?? false;
    row.ledgerId = claim ? claim.id.toString() : null;
  }
}

/** What a bulk redelivery of the list acts on: each failed row's latest attempt. */
function redeliverableRows(matching: DeliveryRow[]): RedeliverableRow[] {
  return matching
    .filter((row) => row.attempts.length > 0 && isFailed(row, true))
    .map((row) => ({ eventId: row.eventId, tenantId: row.tenantId, deliveryId: row.attempts[0]!.id }));
}

/** Failed: the provider has attempts and none succeeded; without the provider's view, we never answered 2xx. */
function isFailed(row: Pick<DeliveryRow, "attempts" | "receipts">, providerKnown: boolean): boolean {
  if (providerKnown && row.attempts.length > 0) return !row.attempts.some((a) => a.succeeded);
  return !row.receipts.some((r) => r.status >= 200 && r.status < 300);
}

export function mismatchOf(row: Pick<DeliveryRow, "attempts" | "receipts">, providerKnown: boolean): Mismatch | null {
  if (!providerKnown || row.attempts.length === 0) return null;
  const providerSucceeded = row.attempts.some((a) => a.succeeded);
  const weAnsweredOk = row.receipts.some((r) => r.status >= 200 && r.status < 300);
  if (!providerSucceeded && weAnsweredOk) return "failed_but_answered";
  if (providerSucceeded && row.receipts.length === 0) return "delivered_without_receipt";
  // Our 2xx answers to the attempts listed (from the first one on: an older attempt outside the
  // window is not listed), against the provider's own count of them.
  const first = Math.min(...row.attempts.map((a) => a.at.getTime())) - 1_000;
  const oursOk = row.receipts.filter(
    (r) => r.source === "provider" && r.status >= 200 && r.status < 300 && r.receivedAt.getTime() >= first,
  ).length;
  if (oursOk > row.attempts.filter((a) => a.succeeded).length) return "answer_not_received";
  return null;
}
