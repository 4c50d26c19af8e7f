// Saves what a benchmark purge is about to delete (one day of claims and receipts, one day of
// payloads) and puts it back afterwards, with the rollups and their watermarks as they were, so a
// 10M-row fill (minutes to make, gigabytes to copy) serves run after run. A run that died half way is
// repaired by the next one: it restores from the saved tables it finds before saving anew.
//
// The restored rows keep their ids, so they sit at or below folded_id exactly as before and the
// restored hourly counts count them; the rows the benchmark's ingest added stay (ids above the
// watermark: the next fold counts them), so the rollups stay exact.
type Query = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

const SAVED = {
  claims: "bench_saved_claims",
  receipts: "bench_saved_receipts",
  payloads: "bench_saved_payloads",
  claimCounts: "bench_saved_claim_hourly_counts",
  receiptCounts: "bench_saved_receipt_hourly_counts",
  watermarks: "bench_saved_rollup_watermarks",
  settings: "bench_saved_settings",
} as const;

export type PurgeDay = { claimsBefore: Date; payloadsBefore: Date };

export async function hasSavedDay(query: Query): Promise<boolean> {
  const [row] = await query<{ saved: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS saved`, [SAVED.watermarks]);
  return row!.saved;
}

/** Copies what the purge of `day` will touch into side tables (replacing an older copy). */
export async function saveDay(
  query: Query,
  day: PurgeDay,
): Promise<{ claims: number; receipts: number; payloads: number }> {
  await dropSaved(query);
  await query(`CREATE TABLE ${SAVED.claims} AS SELECT * FROM processed_events WHERE received_at < $1`, [
    day.claimsBefore,
  ]);
  await query(`CREATE TABLE ${SAVED.receipts} AS SELECT * FROM receipts WHERE received_at < $1`, [day.claimsBefore]);
  await query(
    `CREATE TABLE ${SAVED.payloads} AS SELECT id, payload FROM processed_events
      WHERE received_at >= $1 AND received_at < $2 AND payload IS NOT NULL`,
    [day.claimsBefore, day.payloadsBefore],
  );
  await query(`CREATE TABLE ${SAVED.claimCounts} AS SELECT * FROM claim_hourly_counts`);
  await query(`CREATE TABLE ${SAVED.receiptCounts} AS SELECT * FROM receipt_hourly_counts`);
  await query(`CREATE TABLE ${SAVED.settings} AS SELECT * FROM settings WHERE key = 'retention'`);
  // Last: its presence says the copy is complete (hasSavedDay).
  await query(`CREATE TABLE ${SAVED.watermarks} AS SELECT * FROM rollup_watermarks`);
  const count = async (table: string) =>
    Number((await query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`))[0]!.n);
  return {
    claims: await count(SAVED.claims),
    receipts: await count(SAVED.receipts),
    payloads: await count(SAVED.payloads),
  };
}

/** Puts the saved day back (what is still there is left alone), then VACUUM ANALYZE. */
export async function restoreDay(query: Query): Promise<void> {
  await query(`INSERT INTO processed_events SELECT * FROM ${SAVED.claims} ON CONFLICT DO NOTHING`);
  await query(`INSERT INTO receipts SELECT * FROM ${SAVED.receipts} ON CONFLICT DO NOTHING`);
  await query(
    `UPDATE processed_events p SET payload = s.payload FROM ${SAVED.payloads} s WHERE p.id = s.id AND p.payload IS NULL`,
  );
  await query(`DELETE FROM claim_hourly_counts`);
  await query(`INSERT INTO claim_hourly_counts SELECT * FROM ${SAVED.claimCounts}`);
  await query(`DELETE FROM receipt_hourly_counts`);
  await query(`INSERT INTO receipt_hourly_counts SELECT * FROM ${SAVED.receiptCounts}`);
  await query(
    `UPDATE rollup_watermarks w SET folded_id = s.folded_id, pending_id = s.pending_id, pending_at = s.pending_at
       FROM ${SAVED.watermarks} s WHERE w.source = s.source`,
  );
  await query(`DELETE FROM settings WHERE key = 'retention'`);
  await query(`INSERT INTO settings SELECT * FROM ${SAVED.settings}`);
  await query(`VACUUM (ANALYZE) processed_events, receipts`);
}

export async function dropSaved(query: Query): Promise<void> {
  for (const table of Object.values(SAVED)) await query(`DROP TABLE IF EXISTS ${table}`);
}
