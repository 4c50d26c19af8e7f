import "server-only";
// The filtered ledger as CSV text, one keyset page at a time (streamed, never all in memory).
// PostgreSQL writes each page's lines (lib/views/csv/csv-sql.ts) and sends them back as ONE value with
// the page's last position: no JS object per exported row, and the page text is handed over
// (lib/views/csv/take-text.ts), so nothing of a page outlives the young generation
// (docs/decisions/0012-csv-export-in-postgres.md).
// Each page is its own short statement (its own snapshot), as the keyset design intends: no
// snapshot held for the minutes a full export takes, and a client that stops reading stops the
// queries.
import { prisma, type DbOrTx } from "../../core/db/client";
import { Prisma } from "../../generated/prisma/client";
import { csvLine } from "../csv/csv-line";
import { csvLineSql, isoTimestampSql } from "../csv/csv-sql";
import { takeText } from "../csv/take-text";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import type { KeysetCursor } from "../listing/keyset-cursor";
import type { LedgerFilters } from "./ledger-filters";
import { ledgerWhereSql, type LedgerPageOptions } from "./list-ledger";

const BATCH = 1000;

export const LEDGER_CSV_HEADER = [
  "ledger_id",
  "tenant_id",
  "event_id",
  "type",
  "key_id",
  "sequence",
  "outcome",
  "reason",
  "received_at",
  "processing_micros",
] as const;

// In the order of LEDGER_CSV_HEADER: every cell as the text csvCell would start from. Computed once
// per row in the page's subquery (its LIMIT keeps it from being inlined into the line's expression,
// which reads each cell several times).
const CELLS: Prisma.Sql[] = [
  Prisma.raw("id::text"),
  Prisma.raw("tenant_id"),
  Prisma.raw("event_id"),
  Prisma.raw("type"),
  Prisma.raw("key_id"),
  Prisma.raw("sequence::text"),
  Prisma.raw("outcome"),
  Prisma.raw("reason"),
  isoTimestampSql(Prisma.raw("received_at")),
  Prisma.raw("processing_micros::text"),
];
const CELL_COLUMNS = Prisma.join(CELLS.map((cell, i) => Prisma.sql`${cell} AS ${Prisma.raw(`c${i}`)}`));
const LINE = csvLineSql(CELLS.map((_, i) => Prisma.raw(`c${i}`)));

type CsvPage = { text: string | null; row_count: number; last_at: Date | null; last_id: bigint | null };

export async function* ledgerCsvLines(
  options: { actor: Actor; filters: LedgerFilters; batch?: number },
  db: DbOrTx = prisma,
): AsyncGenerator<string> {
  authorize(options.actor, "ledger.export");
  const batch = options.batch ?? BATCH;
  yield csvLine(LEDGER_CSV_HEADER);
  let cursor: KeysetCursor | undefined;
  for (;;) {
    const [page] = await db.$queryRaw<CsvPage[]>(ledgerCsvPageSql({ ...options, cursor, limit: batch }));
    if (!page?.text || page.last_at === null || page.last_id === null) return;
    const last = page.row_count < batch;
    cursor = { at: page.last_at, id: page.last_id };
    // Handed over, not kept (lib/views/csv/take-text.ts): the page text dies young.
    yield takeText(page);
    if (last) return;
  }
}

/** One page of the export (authorized and scoped like the ledger page), exported so a test can EXPLAIN it. */
export function ledgerCsvPageSql(options: LedgerPageOptions): Prisma.Sql {
  // The last position is the page's smallest (received_at, id): the keyset order is descending.
  return Prisma.sql`
    SELECT string_agg(${LINE}, '' ORDER BY received_at DESC, id DESC) AS text,
           count(*)::int AS row_count,
           min(received_at) AS last_at,
           (array_agg(id ORDER BY received_at, id))[1] AS last_id
    FROM (
      SELECT id, received_at, ${CELL_COLUMNS}
      FROM processed_events ${ledgerWhereSql(options)}
      ORDER BY received_at DESC, id DESC
      LIMIT ${options.limit}
    ) page`;
}
