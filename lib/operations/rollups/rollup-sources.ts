import { EVERY_DISTRICT_SQL_TEXT } from "../../core/tenancy/district-scope";

// The two rolled-up tables and how each row is bucketed. One place, so the fold, the purge's
// subtraction and the live tail count the same key for the same row.
export const ROLLUP_SOURCES = {
  processed_events: {
    counts: "claim_hourly_counts",
    keyColumn: "outcome",
    keyOf: "outcome",
    // Claims carry no "ok" figure; 0 keeps the two sources one shape.
    okOf: "0",
  },
  receipts: {
    counts: "receipt_hourly_counts",
    keyColumn: "outcome_key",
    // What the Overview chart shows: a 4xx/5xx answer is 'rejected' whatever the outcome column says.
    keyOf: "CASE WHEN status >= 400 THEN 'rejected' ELSE coalesce(outcome, 'rejected') END",
    okOf: "CASE WHEN status BETWEEN 200 AND 299 THEN 1 ELSE 0 END",
  },
} as const;

export type RollupSource = keyof typeof ROLLUP_SOURCES;

/** The UTC hour a row is counted in (explicit zone: the session's TimeZone must not matter). */
export const HOUR_OF_RECEIVED_AT = "date_trunc('hour', received_at, 'UTC')";

/**
 * The rows the rollups count: every district's but the readiness canary's (lib/core/tenancy/canary.ts),
 * whose test deliveries are the check's business, never a figure on the Overview. The fold, the
 * purge's subtraction and the live tail all apply it, so they stay equal.
 */
export const COUNTED_ROW = EVERY_DISTRICT_SQL_TEXT;
