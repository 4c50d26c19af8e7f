// The ledger's filters, parsed from a query string at the boundary. Bad input becomes a message
// for the form, never an exception (the parts every list shares: lib/views/listing/query-filters.ts).
import { z } from "zod";
import {
  firstParam,
  parseTimeRange,
  setTimeRange,
  type ParsedFilters,
  type QueryParams,
} from "../listing/query-filters";
import { LEDGER_OUTCOMES } from "../../core/vocabulary";

export { LEDGER_OUTCOMES };

export type LedgerFilters = {
  tenantId?: string;
  type?: string;
  outcome?: (typeof LEDGER_OUTCOMES)[number];
  eventId?: string;
  from?: Date;
  to?: Date;
};

const text = z.string().trim().max(200);

export function parseLedgerFilters(params: QueryParams): ParsedFilters<LedgerFilters> {
  const errors: string[] = [];
  const filters: LedgerFilters = {};
  for (const [name, label] of [
    ["tenant", "District"],
    ["type", "Type"],
    ["event", "Event id"],
  ] as const) {
    const raw = firstParam(params[name]);
    if (raw === undefined) continue;
    const parsed = text.safeParse(raw);
    if (!parsed.success) errors.push(`${label} is too long.`);
    else if (name === "tenant") filters.tenantId = parsed.data;
    else if (name === "type") filters.type = parsed.data;
    else filters.eventId = parsed.data;
  }
  const outcome = firstParam(params.outcome);
  if (outcome !== undefined) {
    if ((LEDGER_OUTCOMES as readonly string[]).includes(outcome)) filters.outcome = outcome as LedgerFilters["outcome"];
    else errors.push(`Outcome must be one of ${LEDGER_OUTCOMES.join(", ")}.`);
  }
  Object.assign(filters, parseTimeRange(params, errors));
  return { filters, errors };
}

/** The query string that reproduces these filters (for links, pagination and the CSV export). */
export function ledgerFiltersToQuery(filters: LedgerFilters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.tenantId) query.set("tenant", filters.tenantId);
  if (filters.type) query.set("type", filters.type);
  if (filters.outcome) query.set("outcome", filters.outcome);
  if (filters.eventId) query.set("event", filters.eventId);
  setTimeRange(query, filters);
  return query;
}
