import "server-only";
// One batch of the purge = one short autocommit statement on the purge's own connection.
//
// Each batch walks the (received_at, id) index in order from where the previous batch stopped
// (keyset), so batch N does not re-walk the dead index entries batches 1..N-1 left behind, and
// takes at most `limit` rows: row locks on a few thousand old rows for a few milliseconds, never a
// table lock, never the recent rows ingest is inserting. SKIP LOCKED leaves a row someone is
// updating right now (a human resolving it) for the next run instead of waiting for them.
//
// A claim that is quarantined and not yet resolved is kept past the window: it is waiting for a
// human (docs/design.md, invariant 2), and silently deleting it would lose exactly what they must see.
// Its payload is not: it goes past PAYLOAD_RETENTION_DAYS like any other (the claim keeps the
// type, keys, sequence and reason a person decides on).
import { HISTORY_PURGES, isHistoryTarget, type HistoryPurge, type HistoryTarget } from "./history-purges";
import type { PurgeConnection } from "./purge-connection";
import { purgeAuditBatch, type AuditPurgeContext } from "./audit-purge";
import { COUNTED_ROW, HOUR_OF_RECEIVED_AT, ROLLUP_SOURCES, type RollupSource } from "../rollups/rollup-sources";

/** Where a walk stands: the last row's age (its received_at, sent_at, at, …) and id. */
export type KeysetPosition = { at: Date; id: string } | null;
/**
 * dependentRows: rows that went with the deleted ones (an outbox row's attempts, an alert's
 * notification state). walBytes: WAL written while the batch ran (ingest's of that moment
 * included), for the pacing.
 */
export type BatchResult = {
  rows: number;
  dependentRows: number;
  scanned: number;
  last: KeysetPosition;
  walBytes: number;
};

const keptForHumans = `NOT (outcome = 'quarantined' AND resolved_at IS NULL)`;

const afterPosition = `(received_at, id) > (COALESCE($1::timestamptz, '-infinity'::timestamptz), COALESCE($2::bigint, 0))`;

/**
 * The deleted rows the hourly counts already hold (id <= folded_id) come off them in the same
 * statement. FOR SHARE on the watermark row: a fold holds it FOR UPDATE, so either the fold's
 * count already saw these rows and this statement reads its new folded_id (waiting for it), or
 * the fold starts after this commits and never sees them (lib/operations/rollups/fold-rollups.ts).
 */
function subtractFromRollup(source: RollupSource): string {
  const { counts, keyColumn, keyOf, okOf } = ROLLUP_SOURCES[source];
  const ok = source === "receipts" ? `, ok_rows = c.ok_rows - gone.ok_rows` : "";
  return `, mark AS (
      SELECT folded_id FROM rollup_watermarks WHERE source = '${source}' FOR SHARE
    ), gone AS (
      SELECT ${HOUR_OF_RECEIVED_AT} AS hour, ${keyOf} AS key, count(*) AS rows, sum(${okOf}) AS ok_rows
      FROM done, mark WHERE done.id <= mark.folded_id AND ${COUNTED_ROW} GROUP BY 1, 2
    ), subtracted AS (
      UPDATE ${counts} c SET rows = c.rows - gone.rows${ok} FROM gone WHERE c.hour = gone.hour AND c.${keyColumn} = gone.key RETURNING 1
    )`;
}

const ledgerStatements = {
  claims: `
    WITH batch AS (
      SELECT id, received_at AS at FROM processed_events
      WHERE ${afterPosition} AND received_at < $3::timestamptz AND ${keptForHumans}
      ORDER BY received_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
    ), done AS (
      DELETE FROM processed_events p USING batch WHERE p.id = batch.id RETURNING p.id, p.received_at, p.outcome, p.tenant_id
    )${subtractFromRollup("processed_events")}`,
  payloads: `
    WITH batch AS (
      SELECT id, received_at AS at FROM processed_events
      WHERE ${afterPosition} AND received_at < $3::timestamptz AND payload IS NOT NULL
        AND id % $5::bigint = $6::bigint
      ORDER BY received_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
    ), done AS (
      UPDATE processed_events p SET payload = NULL FROM batch WHERE p.id = batch.id RETURNING p.id
    )`,
  // The payloads of the quarantined claims kept past the claims' window, which the walk above
  // (from that window's cutoff on) never reaches: through the open quarantine's own index.
  kept_payloads: `
    WITH batch AS (
      SELECT id, received_at AS at FROM processed_events
      WHERE ${afterPosition} AND received_at < $3::timestamptz AND outcome = 'quarantined' AND resolved_at IS NULL
        AND payload IS NOT NULL
      ORDER BY received_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
    ), done AS (
      UPDATE processed_events p SET payload = NULL FROM batch WHERE p.id = batch.id RETURNING p.id
    )`,
  receipts: `
    WITH batch AS (
      SELECT id, received_at AS at FROM receipts
      WHERE ${afterPosition} AND received_at < $3::timestamptz
      ORDER BY received_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
    ), done AS (
      DELETE FROM receipts r USING batch WHERE r.id = batch.id RETURNING r.id, r.received_at, r.outcome, r.status, r.tenant_id
    )${subtractFromRollup("receipts")}`,
} as const;

export type PurgeTarget = keyof typeof ledgerStatements | HistoryTarget;

const summary = (dependent: boolean) => `
    SELECT (SELECT count(*) FROM done)::int AS rows,
           ${dependent ? "(SELECT count(*) FROM dependent)::int" : "0"} AS dependent_rows,
           (SELECT count(*) FROM batch)::int AS scanned,
           (SELECT at FROM batch ORDER BY at DESC, id DESC LIMIT 1) AS last_at,
           (SELECT id FROM batch ORDER BY at DESC, id DESC LIMIT 1)::text AS last_id`;

type Row = { rows: number; dependent_rows: number; scanned: number; last_at: Date | null; last_id: string | null };

/**
 * Which rows of the range this batch's walk takes: those with `id % of = index` (the payload clear
 * runs in interleaved passes, purge-pacing.ts); the deletes take every row in one pass.
 */
export type PurgePass = { index: number; of: number };

export async function purgeBatch(
  connection: PurgeConnection,
  target: PurgeTarget,
  options: { before: Date; after: KeysetPosition; limit: number; pass?: PurgePass; audit?: AuditPurgeContext },
): Promise<BatchResult> {
  const start = await connection.query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn");
  const walBytes = async () => {
    const wal = await connection.query<{ bytes: string }>(
      "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint::text AS bytes",
      [start.rows[0]!.lsn],
    );
    return Number(wal.rows[0]!.bytes);
  };
  if (target === "audit_log") {
    if (!options.audit) throw new Error("the audit log's purge needs its context (now, window, trigger)");
    // Its keyset position's id is the last seq deleted (audit-purge.ts walks the chain by seq).
    const batch = await purgeAuditBatch(connection, {
      before: options.before,
      afterSeq: options.after?.id ?? null,
      limit: options.limit,
      context: options.audit,
    });
    return { ...batch, dependentRows: 0, last: batch.last ?? options.after, walBytes: await walBytes() };
  }
  const params: unknown[] = [options.after?.at ?? null, options.after?.id ?? null, options.before, options.limit];
  if (target === "payloads") params.push(options.pass?.of ?? 1, options.pass?.index ?? 0);
  let sql: string;
  if (isHistoryTarget(target)) {
    const purge: HistoryPurge = HISTORY_PURGES[target];
    sql = purge.sql + summary(purge.dependent !== undefined);
  } else {
    sql = ledgerStatements[target] + summary(false);
  }
  const result = await connection.query<Row>(sql, params);
  const row = result.rows[0]!;
  return {
    rows: row.rows,
    dependentRows: row.dependent_rows,
    scanned: row.scanned,
    last: row.last_at && row.last_id ? { at: row.last_at, id: row.last_id } : options.after,
    walBytes: await walBytes(),
  };
}
