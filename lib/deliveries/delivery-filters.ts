// The Deliveries page's filters, parsed from a query string at the boundary like the ledger's and
// the audit log's (the parts every list shares: lib/listing/query-filters.ts). Bad input becomes a
// message for the form, never an exception; the bulk actions' window is the one exception, since
// an action answers with an error.
import { AppError } from "../errors";
import {
  firstParam,
  parseUtcDateTime,
  utcQueryValue,
  type ParsedFilters,
  type QueryParams,
} from "../listing/query-filters";

export const DELIVERY_STATUSES = ["all", "failed", "mismatched"] as const;
export type DeliveryStatusFilter = (typeof DELIVERY_STATUSES)[number];

const DEFAULT_WINDOW_MS = 24 * 3_600_000;

export type DeliveryFilters = {
  /**
   * The one window of the page: the list, the dry run and the bulk redelivery all use it. Second
   * precision; an empty To means "now" (openEnded), so a reload after a redelivery shows the new
   * attempt.
   */
  since: Date;
  until: Date;
  openEnded: boolean;
  status: DeliveryStatusFilter;
  tenantId?: string;
  eventId?: string;
  page: number;
  /** The provider's own cursor into its attempts. */
  providerCursor?: string;
};

export function parseDeliveryFilters(params: QueryParams, now = new Date()): ParsedFilters<DeliveryFilters> {
  const errors: string[] = [];
  const nowSecond = Math.floor(now.getTime() / 1000) * 1000;
  const since = parseUtcDateTime(firstParam(params.from), "From", errors) ?? new Date(nowSecond - DEFAULT_WINDOW_MS);
  const explicitUntil = parseUtcDateTime(firstParam(params.to), "To", errors);
  // "now" includes the current second (the window's end is exclusive).
  const until = explicitUntil ?? new Date(nowSecond + 1000);
  if (since >= until) errors.push("From must be before To.");
  const rawStatus = firstParam(params.status) ?? "all";
  const status = (DELIVERY_STATUSES as readonly string[]).includes(rawStatus)
    ? (rawStatus as DeliveryStatusFilter)
    : "all";
  if (status !== rawStatus) errors.push(`Status must be one of ${DELIVERY_STATUSES.join(", ")}.`);
  return {
    filters: {
      since,
      until,
      openEnded: !explicitUntil,
      status,
      tenantId: firstParam(params.tenant)?.slice(0, 200),
      eventId: firstParam(params.event)?.slice(0, 200),
      page: Number(firstParam(params.page) ?? 1) || 1,
      providerCursor: firstParam(params.pcursor)?.slice(0, 500),
    },
    errors,
  };
}

/** The query string that reproduces these filters on `page` (defaults left out). */
export function deliveryFiltersToQuery(
  filters: Omit<DeliveryFilters, "providerCursor">,
  page = filters.page,
): URLSearchParams {
  const query = new URLSearchParams();
  query.set("from", utcQueryValue(filters.since));
  if (!filters.openEnded) query.set("to", utcQueryValue(filters.until));
  if (filters.status !== "all") query.set("status", filters.status);
  if (filters.tenantId) query.set("tenant", filters.tenantId);
  if (filters.eventId) query.set("event", filters.eventId);
  if (page !== 1) query.set("page", String(page));
  return query;
}

/** The bulk actions' window: both ends given (the page fills them in), UTC. */
export function parseBulkWindow(input: { from: string; to: string }): { since: Date; until: Date } {
  const errors: string[] = [];
  const since = parseUtcDateTime(input.from || undefined, "From", errors);
  const until = parseUtcDateTime(input.to || undefined, "To", errors);
  if (errors.length) throw new AppError("bad_request", errors.join(" "));
  if (!since || !until) throw new AppError("bad_request", "Give both ends of the window (From and To, UTC).");
  return { since, until };
}
