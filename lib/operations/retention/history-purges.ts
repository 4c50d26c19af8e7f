// The purge of every table beyond claims and receipts that grows with traffic or time
// (docs/retention.md): one entry per table, the rows past its window that may go, and the rows
// that never do. run-purge.ts walks them after the receipts, in the same paced batches.
//
// Each batch takes the oldest deletable rows after where the previous batch stopped (keyset on
// the row's age and id, through a partial index of exactly the deletable rows where the table
// also holds rows that are kept), at most `limit` of them, locked SKIP LOCKED: a row someone is
// changing right now (an alert being resolved) waits for the next night.
import type { Env } from "../../core/config/env";

/** The settings that hold a table's window, in days (lib/core/config/env.ts). */
export type WindowSetting = Extract<
  keyof Env,
  | "OUTBOX_RETENTION_DAYS"
  | "ALERT_RETENTION_DAYS"
  | "GAP_RETENTION_DAYS"
  | "RUN_HISTORY_RETENTION_DAYS"
  | "AUDIT_RETENTION_DAYS"
  | "KEY_HISTORY_RETENTION_DAYS"
>;

export type HistoryPurge = {
  /** The table, also the key of its count in purge_runs.rows_deleted. */
  table: string;
  window: WindowSetting;
  /** The rows that go with each deleted row (counted under this table's name in rows_deleted). */
  dependent?: string;
  /** The statement: $1/$2 the keyset position, $3 the cutoff, $4 the batch size. */
  sql: string;
};

type Walk = { table: string; at: string; idType: "bigint" | "text"; deletable: string; lock?: boolean };

/** The batch CTE: the next `limit` deletable rows past the keyset position, as (id, at). */
function batchOf(walk: Walk): string {
  const noId = walk.idType === "bigint" ? "0" : "''";
  return `
    WITH batch AS (
      SELECT t.id, ${walk.at} AS at FROM ${walk.table} t
      WHERE (${walk.at}, t.id) > (COALESCE($1::timestamptz, '-infinity'::timestamptz), COALESCE($2::${walk.idType}, ${noId}))
        AND ${walk.at} < $3::timestamptz AND ${walk.deletable}
      ORDER BY ${walk.at}, t.id LIMIT $4${walk.lock === false ? "" : " FOR UPDATE OF t SKIP LOCKED"}
    )`;
}

function deleteBatch(walk: Walk, dependent?: { table: string; column: string }): string {
  const dependentCte = dependent
    ? `, dependent AS (
      DELETE FROM ${dependent.table} x USING batch WHERE x.${dependent.column} = batch.id RETURNING 1
    )`
    : "";
  return `${batchOf(walk)}${dependentCte}, done AS (
      DELETE FROM ${walk.table} d USING batch WHERE d.id = batch.id RETURNING d.id
    )`;
}

export const HISTORY_PURGES = {
  // Sent calls and notifications, by when they were sent; pending rows stay (failed ones: below).
  // Their attempts go with them.
  outbox: {
    table: "outbox",
    window: "OUTBOX_RETENTION_DAYS",
    dependent: "outbox_attempts",
    sql: deleteBatch(
      { table: "outbox", at: "t.sent_at", idType: "bigint", deletable: "t.status = 'sent'" },
      { table: "outbox_attempts", column: "outbox_id" },
    ),
  },
  // Failed rows once they are settled: a notification OUTBOX_RETENTION_DAYS after it was given up
  // (or a person decided on it), a provider call that long after a person decided on its alert
  // (lib/operations/alerts/failed-outbox.ts). A failed provider call nobody decided on stays.
  outbox_failed: {
    table: "outbox",
    window: "OUTBOX_RETENTION_DAYS",
    dependent: "outbox_attempts",
    sql: deleteBatch(
      {
        table: "outbox",
        at: "COALESCE(t.settled_at, t.failed_at)",
        idType: "bigint",
        deletable: "t.status = 'failed' AND (t.settled_at IS NOT NULL OR t.kind LIKE 'notify.%')",
      },
      { table: "outbox_attempts", column: "outbox_id" },
    ),
  },
  // Resolved alerts, by when their condition went, with what the notifier staged for them (no
  // foreign key: lib/notifications keeps that table). Open and acknowledged alerts stay, and so
  // does a person's decision while its condition holds (docs/decisions/0036): deleting it would
  // let the next sweep or drift check raise the same condition again as new.
  alerts: {
    table: "alerts",
    window: "ALERT_RETENTION_DAYS",
    dependent: "alert_notifications",
    sql: deleteBatch(
      {
        table: "alerts",
        at: "t.condition_cleared_at",
        idType: "bigint",
        deletable: "t.state = 'resolved' AND t.condition_cleared_at IS NOT NULL",
      },
      { table: "alert_notifications", column: "alert_id" },
    ),
  },
  sequence_gaps: {
    table: "sequence_gaps",
    window: "GAP_RETENTION_DAYS",
    sql: deleteBatch({
      table: "sequence_gaps",
      at: "t.closed_at",
      idType: "bigint",
      deletable: "t.closed_at IS NOT NULL",
    }),
  },
  // Run histories keep, whatever their age, what the pages and jobs read as "the last run": the
  // newest successful purge (and a running one: it holds the lease), the newest finished readiness
  // run, the newest finished drift check (the schedule counts from it) and any unfinished one.
  purge_runs: {
    table: "purge_runs",
    window: "RUN_HISTORY_RETENTION_DAYS",
    sql: deleteBatch({
      table: "purge_runs",
      at: "t.started_at",
      idType: "bigint",
      deletable: "t.status <> 'running' AND t.id < (SELECT max(id) FROM purge_runs WHERE status = 'ran')",
    }),
  },
  readiness_runs: {
    table: "readiness_runs",
    window: "RUN_HISTORY_RETENTION_DAYS",
    sql: deleteBatch({
      table: "readiness_runs",
      at: "t.started_at",
      idType: "bigint",
      deletable: "t.id < (SELECT max(id) FROM readiness_runs WHERE finished_at IS NOT NULL)",
    }),
  },
  drift_runs: {
    table: "drift_runs",
    window: "RUN_HISTORY_RETENTION_DAYS",
    sql: deleteBatch({
      table: "drift_runs",
      at: "t.requested_at",
      idType: "bigint",
      deletable:
        "t.status IN ('done', 'failed') AND t.id < (SELECT max(id) FROM drift_runs WHERE status IN ('done', 'failed'))",
    }),
  },
  // The queue's jobs that failed for good (graphile-worker keeps them until removed), through its
  // documented view and admin function; complete_jobs leaves a job a worker holds alone.
  failed_jobs: {
    table: "graphile_worker.jobs",
    window: "RUN_HISTORY_RETENTION_DAYS",
    sql: `${batchOf({
      table: "graphile_worker.jobs",
      at: "t.updated_at",
      idType: "bigint",
      deletable: "t.attempts >= t.max_attempts AND t.locked_at IS NULL",
      lock: false,
    })}, done AS (
      SELECT id FROM graphile_worker.complete_jobs(ARRAY(SELECT id FROM batch))
    )`,
  },
  // A district's revoked and rotated keys, by when they were deactivated. Kept whatever their age:
  // active and superseded keys (live, or possibly live), and a deactivated key whose activation we
  // never recorded, or recorded above the district's high-water mark: only its row stops a late
  // activation from bringing it to life. For any other, a late activation is older than the
  // high-water mark and is refused by the ordering rules without the row (recorded stale and
  // flagged as a superseded key for a human: docs/retention.md). Ingest reads a key row under the
  // district's lock but never needs a deactivated one to exist, so the batch does not take that lock.
  api_keys: {
    table: "api_keys",
    window: "KEY_HISTORY_RETENTION_DAYS",
    sql: deleteBatch({
      table: "api_keys",
      at: "GREATEST(t.revoked_at, t.rotated_at)",
      idType: "text",
      deletable: `t.status IN ('revoked', 'rotated') AND t.activated_seq IS NOT NULL
        AND t.activated_seq <= (SELECT high_water_mark FROM tenants WHERE id = t.tenant_id)`,
    }),
  },
  // The audit log: a prefix of its hash chain, through the path its append-only trigger permits,
  // each batch recording the deletion and signing a checkpoint at the new start in the same
  // transaction. Its batch is audit-purge.ts's, not a statement of this table.
  audit_log: {
    table: "audit_log",
    window: "AUDIT_RETENTION_DAYS",
    sql: "",
  },
  // Signed checkpoints of the audit log, by when they were signed, like the entries. The newest is
  // kept whatever its age: it is what the next verification starts from.
  audit_checkpoints: {
    table: "audit_checkpoints",
    window: "AUDIT_RETENTION_DAYS",
    sql: deleteBatch({
      table: "audit_checkpoints",
      at: "t.at",
      idType: "bigint",
      deletable: "t.id < (SELECT max(id) FROM audit_checkpoints)",
    }),
  },
} satisfies Record<string, HistoryPurge>;

export type HistoryTarget = keyof typeof HISTORY_PURGES;

export function isHistoryTarget(name: string): name is HistoryTarget {
  return Object.hasOwn(HISTORY_PURGES, name);
}

/**
 * Each table's window in days, as the purge applies it: the environment's setting, except that a
 * key's history is never shorter than the claims' window (its deactivation must outlive every
 * claim that could still be redelivered).
 */
export function historyWindowDays(
  config: Pick<Env, WindowSetting>,
  claimsRetentionDays: number,
): Record<HistoryTarget, number> {
  const days = (target: HistoryTarget) => config[HISTORY_PURGES[target].window];
  const windows = Object.fromEntries(
    (Object.keys(HISTORY_PURGES) as HistoryTarget[]).map((target) => [target, days(target)]),
  ) as Record<HistoryTarget, number>;
  windows.api_keys = Math.max(windows.api_keys, claimsRetentionDays);
  return windows;
}
