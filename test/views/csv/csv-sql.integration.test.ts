// The CSV that PostgreSQL writes for the export (lib/views/csv/csv-sql.ts) is byte for byte what
// csvLine writes in Node, for the values that break naive CSV: quotes, commas, CR/LF, leading
// = + - @ TAB CR (formula injection), unicode, empty strings and NULLs, negative numbers.
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Actor } from "@/lib/core/auth/actor";
import { csvCell, csvLine } from "@/lib/views/csv/csv-line";
import { csvCellSql, isoTimestampSql } from "@/lib/views/csv/csv-sql";
import { LEDGER_CSV_HEADER, ledgerCsvLines } from "@/lib/views/ledger/ledger-csv-lines";

const AWKWARD = [
  "",
  "plain",
  "a,b",
  'say "hi"',
  '"',
  '""',
  "line\nbreak",
  "cr\rhere",
  "crlf\r\n",
  "=1+2",
  '=HYPERLINK("http://x","y")',
  "+1",
  "-1",
  "@SUM(A1)",
  "\tTab",
  "\rCR first",
  "\nLF first",
  "'already quoted",
  " =leading space",
  "a=b",
  "-",
  "=",
  "ü unicode ✓ 😀 — 日本",
  '😀,"\n',
  "=😀",
  "back\\slash",
  "semi;colon",
];

const staff: Actor = { id: "u_support", email: "support@keyhook.test", name: null, role: "support", tenantId: null };

describe("CSV written by PostgreSQL", () => {
  it("writes every awkward cell exactly as csvCell", async () => {
    const values: (string | null)[] = [...AWKWARD, null];
    const rows = await prisma.$queryRaw<{ i: number; cell: string }[]>(Prisma.sql`
      SELECT i::int, ${csvCellSql(Prisma.raw("v"))} AS cell
      FROM unnest(${values}::text[]) WITH ORDINALITY AS t(v, i) ORDER BY i`);
    expect(rows.map((r) => r.cell)).toEqual(values.map(csvCell));
  });

  it("writes numbers and timestamps as csvCell writes bigint, int and Date", async () => {
    const rows = await prisma.$queryRaw<{ big: string; small: string; at: string; none: string; d: Date }[]>(Prisma.sql`
      SELECT ${csvCellSql(Prisma.raw("(-9007199254740993)::bigint::text"))} AS big,
             ${csvCellSql(Prisma.raw("(-7)::int::text"))} AS small,
             ${csvCellSql(isoTimestampSql(Prisma.raw("d")))} AS at,
             ${csvCellSql(Prisma.raw("NULL::bigint::text"))} AS none, d
      FROM (VALUES (timestamptz '2026-11-29 10:00:00.999+00'), (timestamptz '0999-01-02 03:04:05.006+00'),
                   (timestamptz '2026-11-29 23:59:59+05:30')) AS t(d)`);
    for (const row of rows) {
      expect(row.big).toBe(csvCell(-9007199254740993n));
      expect(row.small).toBe(csvCell(-7));
      expect(row.at).toBe(csvCell(row.d));
      expect(row.none).toBe(csvCell(null));
    }
  });

  it("the ledger export is csvLine of every row, across page boundaries", async () => {
    const cells = [...AWKWARD, null];
    await prisma.$executeRaw(Prisma.sql`
      INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, reason, received_at, processing_micros)
      SELECT 'district-' || (i % 3), 'evt_' || i || coalesce(v, ''), coalesce(v, 'key.created'), v,
             CASE WHEN i % 4 = 0 THEN NULL ELSE i - 10 END, 'applied', v,
             timestamptz '2026-11-29 10:00:00+00' + (i / 2) * interval '1.5 milliseconds', i * 37
      FROM unnest(${cells}::text[]) WITH ORDINALITY AS t(v, i)`);
    const expected = await prisma.processedEvent.findMany({ orderBy: [{ receivedAt: "desc" }, { id: "desc" }] });
    expect(expected.length).toBe(cells.length);
    const reference =
      csvLine(LEDGER_CSV_HEADER) +
      expected
        .map((r) =>
          csvLine([
            r.id,
            r.tenantId,
            r.eventId,
            r.type,
            r.keyId,
            r.sequence,
            r.outcome,
            r.reason,
            r.receivedAt,
            r.processingMicros,
          ]),
        )
        .join("");
    for (const batch of [1000, 7, 1]) {
      let exported = "";
      for await (const chunk of ledgerCsvLines({ actor: staff, filters: {}, batch })) exported += chunk;
      expect(exported, `batch ${batch}`).toBe(reference);
    }
  });
});
