// What every dashboard list (ledger, audit log, deliveries) parses from its query string the same
// way. Bad input becomes a message for the form, never an exception.

export type ParsedFilters<T> = { filters: T; errors: string[] };
export type QueryParams = Record<string, string | string[] | undefined>;
export type TimeRange = { from?: Date; to?: Date };

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

/** The `from` / `to` parameters, UTC, and From not after To. */
export function parseTimeRange(params: QueryParams, errors: string[]): TimeRange {
  const from = parseUtcDateTime(firstParam(params.from), "From", errors);
  const to = parseUtcDateTime(firstParam(params.to), "To", errors);
  if (from && to && from > to) errors.push("From must be before To.");
  return { from, to };
}

/** Writes a time range back as the `from` / `to` parameters parseTimeRange reads. */
export function setTimeRange(query: URLSearchParams, range: TimeRange): void {
  if (range.from) query.set("from", range.from.toISOString().slice(0, 16));
  if (range.to) query.set("to", range.to.toISOString().slice(0, 16));
}
