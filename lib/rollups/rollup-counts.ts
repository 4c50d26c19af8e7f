import "server-only";
// Exact counts of claims or receipts in a time range, read from the hourly counts plus the rows
// the counts do not hold yet: the partial hours at either end of the range, and the rows past the
// watermark (fold-rollups.ts). The watermark is read first and passed to the count as a value
// (not a subquery), so the planner sees how short the tail is and walks the primary key for it
// instead of the received_at index; both statements run in one REPEATABLE READ transaction, so
// they see one snapshot. Cost: the hours in the range plus at most two hours of rows plus the
// unfolded tail, whatever the table size.
import { prisma, type DbOrTx, type Tx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { COUNTED_ROW, ROLLUP_SOURCES, type RollupSource } from "./rollup-sources";

const HOUR_MS = 3_600_000;

export type RollupCount = { day: string | null; key: string; rows: number; okRows: number };

export type RollupCountOptions = {
  source: RollupSource;
  /** Inclusive; null = from the oldest row. */
  from: Date | null;
  /** Exclusive; null = up to the newest row. */
  to: Date | null;
  /** Group by UTC day (YYYY-MM-DD) as well as by key. */
  byDay?: boolean;
};

export async function countRollup(options: RollupCountOptions, db: DbOrTx = prisma): Promise<RollupCount[]> {
  const { counts, keyColumn, keyOf, okOf } = ROLLUP_SOURCES[options.source];
  const from = options.from;
  const to = options.to;
  // The whole hours inside [from, to); rows outside them are counted live.
  const wholeFrom = from ? new Date(Math.ceil(from.getTime() / HOUR_MS) * HOUR_MS) : null;
  const wholeTo = to ? new Date(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS) : null;
  const hasWhole = !wholeFrom || !wholeTo || wholeFrom < wholeTo;
  const okCounted = options.source === "receipts" ? "ok_rows" : "0";
  const day = (column: string) =>
    options.byDay ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')` : "NULL::text";

  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}::timestamptz`;
  };
  const range = (column: string, lower: Date | null, upper: Date | null) =>
    [lower ? `${column} >= ${param(lower)}` : "true", upper ? `${column} < ${param(upper)}` : "true"].join(" AND ");

  const parts: string[] = [];
  let foldedIdParam = -1;
  const live = (where: string) =>
    `SELECT ${day("received_at")} AS day, ${keyOf} AS key, 1::bigint AS rows, (${okOf})::bigint AS ok_rows FROM ${options.source} WHERE (${where}) AND ${COUNTED_ROW}`;
  if (hasWhole) {
    parts.push(
      `SELECT ${day("hour")} AS day, ${keyColumn} AS key, rows, ${okCounted}::bigint AS ok_rows FROM ${counts}
       WHERE ${range("hour", wholeFrom, wholeTo)}`,
    );
    // Rows the fold has not reached, inside the whole hours (the PK range: a short tail).
    foldedIdParam = params.push(null) - 1;
    parts.push(live(`id > $${foldedIdParam + 1}::bigint AND ${range("received_at", wholeFrom, wholeTo)}`));
    if (from && wholeFrom && from < wholeFrom) parts.push(live(range("received_at", from, wholeFrom)));
    if (to && wholeTo && wholeTo < to) parts.push(live(range("received_at", wholeTo, to)));
  } else {
    parts.push(live(range("received_at", from, to)));
  }

  const sql = `SELECT day, key, sum(rows)::bigint AS rows, sum(ok_rows)::bigint AS ok_rows
     FROM (${parts.join("\n UNION ALL ")}) counted
     GROUP BY day, key HAVING sum(rows) > 0
     ORDER BY day, key`;
  const count = async (tx: DbOrTx) => {
    if (foldedIdParam >= 0) {
      const [mark] = await tx.$queryRawUnsafe<{ folded_id: bigint }[]>(
        `SELECT folded_id FROM rollup_watermarks WHERE source = $1`,
        options.source,
      );
      params[foldedIdParam] = mark?.folded_id ?? 0n;
    }
    return tx.$queryRawUnsafe<{ day: string | null; key: string; rows: bigint; ok_rows: bigint }[]>(sql, ...params);
  };
  const rows =
    foldedIdParam >= 0 && "$transaction" in db
      ? await db.$transaction((tx: Tx) => count(tx), {
          isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead,
        })
      : await count(db);
  return rows.map((r) => ({ day: r.day, key: r.key, rows: Number(r.rows), okRows: Number(r.ok_rows) }));
}

/** The sum of `rows` over every key (and day). */
export function totalRows(counts: RollupCount[]): number {
  return counts.reduce((sum, c) => sum + c.rows, 0);
}
