// csvCell (lib/views/csv/csv-line.ts) as a SQL expression, so PostgreSQL can build an export's lines and
// Node never holds a row object per exported row (docs/decisions/0012-csv-export-in-postgres.md).
// The bytes are the same as csvCell's; test/views/csv/csv-sql.integration.test.ts compares them.
import { Prisma } from "../../generated/prisma/client";

/**
 * One cell from a text expression: NULL → empty; a leading = + - @ TAB or CR gets a ' (formula
 * injection); a cell with a quote, comma, CR or LF is quoted with its quotes doubled.
 * ascii() reads the first character without copying the text; LIKE on the default
 * (deterministic) collation is a byte search, cheaper per cell than PostgreSQL's regex engine.
 * CR and LF are chr(13) and chr(10) (immutable: folded when the statement is planned), so no
 * escape passes through two layers of string syntax.
 */
export function csvCellSql(text: Prisma.Sql): Prisma.Sql {
  const prefixed = Prisma.sql`(CASE WHEN ascii(${text}) IN (61, 43, 45, 64, 9, 13) THEN '''' || ${text} ELSE ${text} END)`;
  return Prisma.sql`(CASE
    WHEN ${text} IS NULL THEN ''
    WHEN ${text} LIKE '%"%' OR ${text} LIKE '%,%' OR ${text} LIKE ('%' || chr(13) || '%') OR ${text} LIKE ('%' || chr(10) || '%')
      THEN '"' || replace(${prefixed}, '"', '""') || '"'
    ELSE ${prefixed} END)`;
}

/** A timestamp(tz) as Date.prototype.toISOString() writes it: UTC, milliseconds, "Z". */
export function isoTimestampSql(timestamp: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`to_char(${timestamp} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A whole line, "\r\n"-terminated like csvLine: each cell must already be text (or NULL). */
export function csvLineSql(cells: readonly Prisma.Sql[]): Prisma.Sql {
  return Prisma.sql`(${Prisma.join(cells.map(csvCellSql), ` || ',' || `)} || chr(13) || chr(10))`;
}
