// One way to show times and numbers everywhere: UTC, so support and a district agree on "when".
export function formatTime(value: Date | null | undefined): string {
  if (!value) return "—";
  return value.toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

/** The same time as an input's value: what the tables show, without the zone the label names. */
export function formatTimeInput(value: Date | null | undefined): string {
  return value ? value.toISOString().replace("T", " ").slice(0, 19) : "";
}

/** "1 day", "2 days": a count with its noun. */
export function plural(count: number | bigint, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${Number(count) === 1 ? one : many}`;
}

export function formatNumber(value: number | bigint): string {
  return new Intl.NumberFormat("en-US").format(value);
}

/** A count exact up to a bound and estimated past it (e.g. the open quarantine). */
type BoundedCount = { exact: true; value: number } | { exact: false; atLeast: number; estimate: number | null };

/**
 * "1,234" exact; "≈ 1.67M" an estimate (three significant digits: no more precision than it has);
 * "more than 10,000" past the bound with no estimate. The space after ≈ does not break.
 */
export function formatBoundedCount(count: BoundedCount): string {
  if (count.exact) return formatNumber(count.value);
  if (count.estimate === null) return `more than ${formatNumber(count.atLeast - 1)}`;
  const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumSignificantDigits: 3 });
  return `≈\u00a0${compact.format(count.estimate)}`;
}

/** Whether a bounded count has anything in it. */
export function boundedCountIsZero(count: BoundedCount): boolean {
  return count.exact && count.value === 0;
}

export function formatBytes(bytes: number | bigint): string {
  const n = Number(bytes);
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

export function formatPercent(ratio: number | null): string {
  return ratio === null ? "—" : `${(ratio * 100).toFixed(1)} %`;
}
