// What every dashboard list (ledger, audit log, deliveries) parses from its query string the same
// way. Bad input becomes a message for the form, never an exception.

export type ParsedFilters<T> = { filters: T; errors: string[] };
export type QueryParams = Record<string, string | string[] | undefined>;
type TimeRange = { from?: Date; to?: Date };

/**
 * Times in filters are UTC, written as the tables show them ("2026-12-01 08:18:04", seconds
 * optional, a "T" instead of the space and a trailing "Z"/"UTC" accepted): one clock for every
 * viewer, whatever the browser's locale. A bare date is midnight UTC.
 */
export function parseUtcDateTime(raw: string | undefined, label: string, errors: string[]): Date | undefined {
  if (!raw) return undefined;
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?))?\s*(?:Z|UTC)?$/i.exec(raw.trim());
  const date = match ? new Date(`${match[1]}T${match[2] ?? "00:00"}Z`) : null;
  if (!date || Number.isNaN(date.getTime())) {
    errors.push(`${label} is not a date and time (use YYYY-MM-DD HH:MM:SS, UTC).`);
    return undefined;
  }
  return date;
}

/** A time as it travels in a query string: second precision, so a reload keeps what was on screen. */
export function utcQueryValue(date: Date): string {
  return date.toISOString().slice(0, 19);
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
  if (range.from) query.set("from", utcQueryValue(range.from));
  if (range.to) query.set("to", utcQueryValue(range.to));
}
