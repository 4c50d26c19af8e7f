// The Deliveries page's filters, read one way by the list, its dry run and its bulk redelivery:
// the forms carry the same parameters as the page's address, so a bulk action acts on exactly
// the rows the list showed. Bad input becomes messages for the form, never an exception.
import { tooLongMessage } from "../../core/errors";
import { firstParam, parseUtcDateTime, utcQueryValue, type QueryParams } from "../listing/query-filters";
import { DELIVERY_STATUSES, type DeliveryStatusFilter } from "./list-deliveries";

export type DeliveryFilters = {
  since: Date;
  until: Date;
  /** No To was given: the window ends now (this second included). */
  openEnded: boolean;
  tenantId?: string;
  eventId?: string;
  status: DeliveryStatusFilter;
};

/** Second precision; no From: the last 24 hours; no To: now. */
export function parseDeliveryFilters(
  params: QueryParams,
  now = new Date(),
): { filters: DeliveryFilters; errors: string[] } {
  const errors: string[] = [];
  const nowSecond = Math.floor(now.getTime() / 1000) * 1000;
  const since = parseUtcDateTime(firstParam(params.from), "From", errors) ?? new Date(nowSecond - 24 * 3_600_000);
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
      tenantId: limitedParam(params.tenant, "District", errors),
      eventId: limitedParam(params.event, "Event id", errors),
      status,
    },
    errors,
  };
}

/** A text filter up to 200 characters; a longer one is an error under the form, never cut and used. */
function limitedParam(value: QueryParams[string], label: string, errors: string[]): string | undefined {
  const raw = firstParam(value);
  if (raw !== undefined && raw.length > 200) {
    errors.push(`${label} is ${tooLongMessage(200, raw.length)}`);
    return undefined;
  }
  return raw;
}

/**
 * The filters as parameters (the defaults left out). `pinned`: the window's end written out even
 * when open-ended, so a form submitted later means the window the page showed, not a later one.
 */
export function deliveryFilterParams(
  filters: DeliveryFilters,
  options: { pinned?: boolean } = {},
): Record<string, string> {
  const params: Record<string, string> = { from: utcQueryValue(filters.since) };
  if (!filters.openEnded || options.pinned) params.to = utcQueryValue(filters.until);
  if (filters.status !== "all") params.status = filters.status;
  if (filters.tenantId) params.tenant = filters.tenantId;
  if (filters.eventId) params.event = filters.eventId;
  return params;
}

/** Which page of the list: our page number, and the provider's own cursor into its attempts. */
export function parseDeliveryPage(params: QueryParams): { page: number; providerCursor?: string } {
  return {
    page: Number(firstParam(params.page) ?? 1) || 1,
    providerCursor: firstParam(params.pcursor)?.slice(0, 500),
  };
}
