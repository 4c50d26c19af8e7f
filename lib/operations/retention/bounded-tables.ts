import "server-only";
// Every table that grows with traffic or time, what bounds it, and how big it is now: the
// Retention page's table and the metrics' keyhook_table_size_bytes. docs/retention.md explains
// each rule; test/operations/retention/retention-docs.test.ts keeps that page and this list in step.
import { prisma, type DbOrTx } from "../../core/db/client";
import { env } from "../../core/config/env";
import { historyWindowDays, type HistoryTarget, type WindowSetting } from "./history-purges";
import { getRetentionSettings } from "./settings";

type Bound =
  /** Purged past a window in days: the nightly purge's (target), the claims', or another job's. */
  | {
      kind: "purge";
      setting: "RETENTION_DAYS" | "SIGN_IN_FAILURE_RETENTION_DAYS" | WindowSetting;
      target?: HistoryTarget;
      job?: string;
    }
  | { kind: "with"; table: string }
  | { kind: "other"; rule: string };

/** relation: what to size when the table is a view (the job queue's). */
const BOUNDS: { table: string; what: string; bound: Bound; relation?: string }[] = [
  {
    table: "processed_events",
    what: "claims (an unresolved quarantine is kept)",
    bound: { kind: "purge", setting: "RETENTION_DAYS" },
  },
  { table: "receipts", what: "delivery receipts", bound: { kind: "purge", setting: "RETENTION_DAYS" } },
  {
    table: "outbox",
    what: "sent calls and settled failures (pending ones, and failed calls nobody decided on, are kept)",
    bound: { kind: "purge", setting: "OUTBOX_RETENTION_DAYS", target: "outbox" },
  },
  { table: "outbox_attempts", what: "attempts of purged outbox rows", bound: { kind: "with", table: "outbox" } },
  {
    table: "alerts",
    what: "resolved alerts (open ones, and decisions whose condition holds, are kept)",
    bound: { kind: "purge", setting: "ALERT_RETENTION_DAYS", target: "alerts" },
  },
  {
    table: "alert_notifications",
    what: "notification state of resolved alerts",
    bound: { kind: "with", table: "alerts" },
  },
  {
    table: "sequence_gaps",
    what: "closed gaps (open ones are kept)",
    bound: { kind: "purge", setting: "GAP_RETENTION_DAYS", target: "sequence_gaps" },
  },
  {
    table: "purge_runs",
    what: "purge runs (the last successful one is kept)",
    bound: { kind: "purge", setting: "RUN_HISTORY_RETENTION_DAYS", target: "purge_runs" },
  },
  {
    table: "readiness_runs",
    what: "readiness runs (the last finished one is kept)",
    bound: { kind: "purge", setting: "RUN_HISTORY_RETENTION_DAYS", target: "readiness_runs" },
  },
  {
    table: "drift_runs",
    what: "drift checks (the last finished one and unfinished ones are kept)",
    bound: { kind: "purge", setting: "RUN_HISTORY_RETENTION_DAYS", target: "drift_runs" },
  },
  {
    table: "audit_log",
    what: "audit entries (each deletion is audited)",
    bound: { kind: "purge", setting: "AUDIT_RETENTION_DAYS", target: "audit_log" },
  },
  {
    table: "audit_checkpoints",
    what: "signed checkpoints of the audit log (the newest is kept)",
    bound: { kind: "purge", setting: "AUDIT_RETENTION_DAYS", target: "audit_checkpoints" },
  },
  {
    table: "api_keys",
    what: "revoked and rotated keys (live keys and unmatched tombstones are kept)",
    bound: { kind: "purge", setting: "KEY_HISTORY_RETENTION_DAYS", target: "api_keys" },
  },
  {
    table: "graphile_worker.jobs",
    relation: "graphile_worker._private_jobs",
    what: "queue jobs that failed for good (waiting and retried ones are kept)",
    bound: { kind: "purge", setting: "RUN_HISTORY_RETENTION_DAYS", target: "failed_jobs" },
  },
  {
    table: "claim_hourly_counts",
    what: "hourly counts of claims",
    bound: { kind: "other", rule: "an hour goes when its claims do" },
  },
  {
    table: "receipt_hourly_counts",
    what: "hourly counts of receipts",
    bound: { kind: "other", rule: "an hour goes when its receipts do" },
  },
  {
    table: "sign_in_failures",
    what: "failed sign-in counters",
    bound: { kind: "purge", setting: "SIGN_IN_FAILURE_RETENTION_DAYS", job: "auth.purge_sign_in_records" },
  },
  {
    table: "sign_in_address_throttle",
    what: "sign-in throttle per address",
    bound: { kind: "other", rule: "15 quiet minutes (auth.purge_sign_in_records)" },
  },
];

/** The tables above (each one's relation), for the sizes. */
export const GROWING_TABLES: readonly { table: string; relation: string }[] = BOUNDS.map((b) => ({
  table: b.table,
  relation: b.relation ?? b.table,
}));

type BoundedTable = {
  table: string;
  what: string;
  /** "14 days (RETENTION_DAYS)", "with outbox", or the rule that bounds it. */
  bound: string;
  /** PostgreSQL's estimate (reltuples; -1 before the first ANALYZE is shown as null). */
  rowsEstimate: number | null;
  bytes: number;
};

export async function getBoundedTables(db: DbOrTx = prisma): Promise<BoundedTable[]> {
  const settings = await getRetentionSettings(db);
  const windows = historyWindowDays(env(), settings.retentionDays);
  const days = (bound: Bound & { kind: "purge" }) =>
    bound.target
      ? windows[bound.target]
      : bound.setting === "RETENTION_DAYS"
        ? settings.retentionDays
        : env()[bound.setting];
  const sizes = await tableSizes(db);
  return BOUNDS.map(({ table, what, bound }) => {
    const size = sizes.get(table);
    return {
      table,
      what,
      bound:
        bound.kind === "purge"
          ? `${days(bound)} days (${bound.setting}${bound.job ? `, ${bound.job}` : ""})`
          : bound.kind === "with"
            ? `with its ${bound.table} row`
            : bound.rule,
      rowsEstimate: size && size.rows >= 0 ? Math.round(size.rows) : null,
      bytes: size?.bytes ?? 0,
    };
  });
}

/** Each growing table's planner row estimate and on-disk size (heap, indexes, TOAST), one statement. */
export async function tableSizes(db: DbOrTx = prisma): Promise<Map<string, { rows: number; bytes: number }>> {
  const rows = await db.$queryRaw<{ name: string; rows: number; bytes: bigint }[]>`
    SELECT t.name, c.reltuples::float8 AS rows, pg_total_relation_size(c.oid) AS bytes
    FROM unnest(${GROWING_TABLES.map((t) => t.table)}::text[], ${GROWING_TABLES.map((t) => t.relation)}::text[]) AS t(name, relation)
    JOIN pg_class c ON c.oid = to_regclass(t.relation)`;
  return new Map(rows.map((r) => [r.name, { rows: r.rows, bytes: Number(r.bytes) }]));
}
