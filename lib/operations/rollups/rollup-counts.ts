import "server-only";
// Exact counts of claims or receipts in a time range, read from the hourly counts plus the rows
// the counts do not hold yet: the partial hours at either end of the range, and the rows past the
// watermark (fold-rollups.ts). The watermark is read first and passed to the count as a value
// (not a subquery), so the planner sees how short the tail is and walks the primary key for it
// instead of the received_at index; both statements run in one REPEATABLE READ transaction, so
// they see one snapshot. Cost: the hours in the range plus at most two hours of rows plus the
// unfolded tail, whatever the table size.
//
// A page that needs several counts asks for them together (countRollups): one transaction, one
// watermark read and ONE statement for all of them, instead of a transaction (four round trips
// and a pooled connection) per figure. A count that needs only the total (totalOnly) counts its
// partial hours from the received_at index alone (an index-only scan: no heap row is read) minus
// the readiness canary's rows there (its own index range), instead of reading every row's outcome.
import { prisma, type DbOrTx, type Tx } from "../../core/db/client";
import { Prisma } from "../../generated/prisma/client";
import { CANARY_TENANT_ID } from "../../core/tenancy/canary";
import { COUNTED_ROW, ROLLUP_SOURCES, type RollupSource } from "./rollup-sources";

const HOUR_MS = 3_600_000;

export type RollupCount = { day: string | null; key: string; rows: number; okRows: number };

type RollupCountOptions = {
  source: RollupSource;
  /** Inclusive; null = from the oldest row. */
  from: Date | null;
  /** Exclusive; null = up to the newest row. */
  to: Date | null;
  /** Group by UTC day (YYYY-MM-DD) as well as by key. */
  byDay?: boolean;
  /** Only the number of rows: one entry keyed "total", okRows 0 (cheaper partial hours). */
  totalOnly?: boolean;
};

const TOTAL_KEY = "total";

export async function countRollup(options: RollupCountOptions, db: DbOrTx = prisma): Promise<RollupCount[]> {
  return (await countRollups([options], db))[0]!;
}

/** Several counts in one snapshot and one statement; the answers in the order asked. */
export async function countRollups(requests: RollupCountOptions[], db: DbOrTx = prisma): Promise<RollupCount[][]> {
  if (requests.length === 0) return [];
  const params: unknown[] = [];
  const timestamp = (value: Date) => {
    params.push(value);
    return `$${params.length}::timestamptz`;
  };
  // One parameter per source for its watermark, filled in once it has been read.
  const watermarkParams = new Map<RollupSource, number>();
  const watermark = (source: RollupSource) => {
    let index = watermarkParams.get(source);
    if (index === undefined) {
      index = params.push(null) - 1;
      watermarkParams.set(source, index);
    }
    return `$${index + 1}::bigint`;
  };
  const parts = requests.flatMap((request, index) => requestParts(request, index, { timestamp, watermark }));
  const sql = `SELECT request, day, key, sum(rows)::bigint AS rows, sum(ok_rows)::bigint AS ok_rows
     FROM (${parts.join("\n UNION ALL ")}) counted
     GROUP BY request, day, key HAVING sum(rows) > 0
     ORDER BY request, day, key`;

  const count = async (tx: DbOrTx) => {
    if (watermarkParams.size > 0) {
      const marks = await tx.$queryRawUnsafe<{ source: RollupSource; folded_id: bigint }[]>(
        `SELECT source, folded_id FROM rollup_watermarks`,
      );
      for (const [source, index] of watermarkParams)
        params[index] = marks.find((m) => m.source === source)?.folded_id ?? 0n;
    }
    return tx.$queryRawUnsafe<{ request: number; day: string | null; key: string; rows: bigint; ok_rows: bigint }[]>(
      sql,
      ...params,
    );
  };
  // Always through db.$transaction (an `in` test is false for the shared client, a Proxy that
  // answers reads only). Given a transaction handle, this is a savepoint in the caller's
  // transaction, whose isolation level then decides.
  const rows =
    watermarkParams.size > 0
      ? await db.$transaction((tx: Tx) => count(tx), {
          isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead,
        })
      : await count(db);
  const answers: RollupCount[][] = requests.map(() => []);
  for (const r of rows)
    answers[r.request]!.push({ day: r.day, key: r.key, rows: Number(r.rows), okRows: Number(r.ok_rows) });
  return answers;
}

/** The UNION ALL parts of one count, each tagged with the request's index. */
function requestParts(
  options: RollupCountOptions,
  request: number,
  sql: { timestamp: (value: Date) => string; watermark: (source: RollupSource) => string },
): string[] {
  const { source } = options;
  const { counts, keyColumn, keyOf, okOf } = ROLLUP_SOURCES[source];
  const { from, to } = options;
  // The whole hours inside [from, to); rows outside them are counted live.
  const wholeFrom = from ? new Date(Math.ceil(from.getTime() / HOUR_MS) * HOUR_MS) : null;
  const wholeTo = to ? new Date(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS) : null;
  const hasWhole = !wholeFrom || !wholeTo || wholeFrom < wholeTo;
  const total = options.totalOnly === true;
  const okCounted = source === "receipts" && !total ? "ok_rows" : "0";
  const day = (column: string) =>
    options.byDay ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')` : "NULL::text";
  const key = (column: string) => (total ? `'${TOTAL_KEY}'::text` : column);
  const range = (column: string, lower: Date | null, upper: Date | null) =>
    [
      lower ? `${column} >= ${sql.timestamp(lower)}` : "true",
      upper ? `${column} < ${sql.timestamp(upper)}` : "true",
    ].join(" AND ");
  const live = (where: string) =>
    `SELECT ${request} AS request, ${day("received_at")} AS day, ${key(keyOf)} AS key, 1::bigint AS rows, (${total ? "0" : okOf})::bigint AS ok_rows
     FROM ${source} WHERE (${where}) AND ${COUNTED_ROW}`;
  // A partial hour: row by row, or for a total, two index-only counts (every row, minus the canary's).
  const partial = (lower: Date | null, upper: Date | null) =>
    total && !options.byDay
      ? [
          `SELECT ${request} AS request, NULL::text AS day, '${TOTAL_KEY}'::text AS key, count(*)::bigint AS rows, 0::bigint AS ok_rows
           FROM ${source} WHERE ${range("received_at", lower, upper)}`,
          `SELECT ${request} AS request, NULL::text AS day, '${TOTAL_KEY}'::text AS key, -count(*)::bigint AS rows, 0::bigint AS ok_rows
           FROM ${source} WHERE tenant_id = '${CANARY_TENANT_ID}' AND ${range("received_at", lower, upper)}`,
        ]
      : [live(range("received_at", lower, upper))];

  const parts: string[] = [];
  if (hasWhole) {
    parts.push(
      `SELECT ${request} AS request, ${day("hour")} AS day, ${key(keyColumn)} AS key, rows, ${okCounted}::bigint AS ok_rows
       FROM ${counts} WHERE ${range("hour", wholeFrom, wholeTo)}`,
    );
    // Rows the fold has not reached, inside the whole hours (the PK range: a short tail).
    parts.push(live(`id > ${sql.watermark(source)} AND ${range("received_at", wholeFrom, wholeTo)}`));
    if (from && wholeFrom && from < wholeFrom) parts.push(...partial(from, wholeFrom));
    if (to && wholeTo && wholeTo < to) parts.push(...partial(wholeTo, to));
  } else {
    parts.push(...partial(from, to));
  }
  return parts;
}

/** The sum of `rows` over every key (and day). */
export function totalRows(counts: RollupCount[]): number {
  return counts.reduce((sum, c) => sum + c.rows, 0);
}
