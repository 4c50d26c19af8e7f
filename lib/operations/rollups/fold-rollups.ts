import "server-only";
// Folds new claims and receipts into the hourly counts, behind a watermark, from a job (the
// worker every ROLLUP_INTERVAL_MS, and the benchmarks after a fill). Ingest never writes here.
//
// Why a two-step watermark: ids come from a sequence and commit out of order, so "the highest
// id I can see" is not "every lower id is final" — a slower transaction may still commit a lower
// one. So each pass remembers the highest id handed out (pending_id) and when (pending_at), and
// the NEXT pass folds up to it only once no transaction that started before pending_at is still
// open: any row with an id at or below pending_id was inserted by such a transaction, so by then
// it is committed or gone for good. Until a pass folds them, readers count those rows live
// (rollup-counts.ts), so the figures are exact at any moment, only cheaper after a fold.
//
// The purge subtracts what it deletes at or below folded_id in the same statement, holding the
// watermark row FOR SHARE while a fold holds it FOR UPDATE (purge-batches.ts).
import { prisma, type Db } from "../../core/db/client";
import { writersStillOpen } from "../../core/db/writers-still-open";
import { COUNTED_ROW, HOUR_OF_RECEIVED_AT, ROLLUP_SOURCES, type RollupSource } from "./rollup-sources";

type FoldResult = { source: RollupSource; bucketsTouched: number; foldedId: bigint; waiting: boolean };

export async function foldRollups(options: { sources?: RollupSource[] } = {}, db: Db = prisma): Promise<FoldResult[]> {
  const results: FoldResult[] = [];
  for (const source of options.sources ?? (Object.keys(ROLLUP_SOURCES) as RollupSource[])) {
    results.push(await foldOne(source, db));
  }
  return results;
}

type Mark = { folded_id: bigint; pending_id: bigint | null; pending_at: Date | null };

async function foldOne(source: RollupSource, db: Db): Promise<FoldResult> {
  const { counts, keyColumn, keyOf, okOf } = ROLLUP_SOURCES[source];
  return db.$transaction(
    async (tx) => {
      const [mark] = await tx.$queryRawUnsafe<Mark[]>(
        `SELECT folded_id, pending_id, pending_at FROM rollup_watermarks WHERE source = $1 FOR UPDATE`,
        source,
      );
      if (!mark) throw new Error(`rollup_watermarks has no row for ${source} (migration 20261201080000 not applied?)`);
      let foldedId = mark.folded_id;
      let bucketsTouched = 0;
      let waiting = false;
      if (mark.pending_id !== null && mark.pending_at !== null && mark.pending_id > mark.folded_id) {
        // A new statement after the lock: its snapshot sees every purge that committed before us.
        if (await writersStillOpen(tx, mark.pending_at)) {
          waiting = true;
        } else {
          const okColumn = source === "receipts" ? ", ok_rows" : "";
          const okValue = source === "receipts" ? `, sum(${okOf})` : "";
          const okUpdate = source === "receipts" ? `, ok_rows = ${counts}.ok_rows + EXCLUDED.ok_rows` : "";
          bucketsTouched = await tx.$executeRawUnsafe(
            `INSERT INTO ${counts} (hour, ${keyColumn}, rows${okColumn})
             SELECT ${HOUR_OF_RECEIVED_AT}, ${keyOf}, count(*)${okValue}
             FROM ${source} WHERE id > $1::bigint AND id <= $2::bigint AND ${COUNTED_ROW}
             GROUP BY 1, 2
             ON CONFLICT (hour, ${keyColumn}) DO UPDATE SET rows = ${counts}.rows + EXCLUDED.rows${okUpdate}`,
            mark.folded_id,
            mark.pending_id,
          );
          foldedId = mark.pending_id;
          // Hours the purge has emptied.
          await tx.$executeRawUnsafe(`DELETE FROM ${counts} WHERE rows <= 0`);
        }
      }
      if (!waiting) {
        // Read the sequence first, the clock second: whoever took an id we now call pending had
        // started its transaction before pending_at.
        await tx.$executeRawUnsafe(
          `UPDATE rollup_watermarks
           SET folded_id = $2::bigint,
               pending_id = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${sequenceOf(source)}),
               pending_at = clock_timestamp(), updated_at = now()
           WHERE source = $1`,
          source,
          foldedId,
        );
      }
      return { source, bucketsTouched, foldedId, waiting };
    },
    // A first fold after a bulk load reads millions of rows.
    { timeout: 600_000, maxWait: 10_000 },
  );
}

function sequenceOf(source: RollupSource): string {
  return source === "processed_events" ? "processed_events_id_seq" : "receipts_id_seq";
}
