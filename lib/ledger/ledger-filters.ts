// The ledger's filters, parsed from a query string at the boundary. Bad input becomes a message
// for the form, never an exception.
import { z } from "zod";
import { LEDGER_OUTCOMES } from "../vocabulary";

export { LEDGER_OUTCOMES };

export type LedgerFilters = {
  tenantId?: string;
  type?: string;
  outcome?: (typeof LEDGER_OUTCOMES)[number];
  eventId?: string;
  from?: Date;
  to?: Date;
};

export type ParsedFilters<T> = { filters: T; errors: string[] };

const text = z.string().trim().max(200);

/** `datetime-local` values are read as UTC (the pages say so): one clock for every viewer. */
export function parseUtcDateTime(raw: string | undefined, label: string, errors: string[]): Date | undefined {
  if (!raw) return undefined;
  const value = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(raw) ? `${raw}Z` : raw;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(raw)) {
    errors.push(`${label} is not a date and time (use YYYY-MM-DDTHH:MM, UTC).`);
    return undefined;
  }
  return date;
}

export function firstParam(value: string | string[] | undefined): string | undefined {
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined || one.trim() === "" ? undefined : one.trim();
}

export function parseLedgerFilters(params: Record<string, string | string[] | undefined>): ParsedFilters<LedgerFilters> {
  const errors: string[] = [];
  const filters: LedgerFilters = {};
  for (const [name, label] of [["tenant", "District"], ["type", "Type"], ["event", "Event id"]] as const) {
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
  filters.from = parseUtcDateTime(firstParam(params.from), "From", errors);
  filters.to = parseUtcDateTime(firstParam(params.to), "To", errors);
  if (filters.from && filters.to && filters.from > filters.to) errors.push("From must be before To.");
  return { filters, errors };
}

/** The query string that reproduces these filters (for links, pagination and the CSV export). */
export function ledgerFiltersToQuery(filters: LedgerFilters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.tenantId) query.set("tenant", filters.tenantId);
  if (filters.type) query.set("type", filters.type);
  if (filters.outcome) query.set("outcome", filters.outcome);
  if (filters.eventId) query.set("event", filters.eventId);
  if (filters.from) query.set("from", filters.from.toISOString().slice(0, 16));
  if (filters.to) query.set("to", filters.to.toISOString().slice(0, 16));
  return query;
}
