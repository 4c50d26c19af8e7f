// Ages the whole database as if it had stood still for `days`: every timestamp of every row of
// our tables moves that far back (the way an outside check of retention ages a copy), so a purge
// and the sweeps run "now" see two-year-old rows. The audit log is append-only (its trigger
// refuses the UPDATE) and the migrations' bookkeeping is not ours: both keep their times.
import { prisma } from "@/lib/core/db/client";

const SKIPPED = new Set(["audit_log", "_prisma_migrations"]);

export async function ageRows(days: number): Promise<void> {
  const columns = await prisma.$queryRaw<{ table_name: string; column_name: string }[]>`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      AND c.data_type IN ('timestamp with time zone', 'timestamp without time zone')
    ORDER BY c.table_name, c.column_name`;
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of columns) {
    if (SKIPPED.has(table_name)) continue;
    byTable.set(table_name, [...(byTable.get(table_name) ?? []), column_name]);
  }
  for (const [table, names] of byTable) {
    const set = names.map((name) => `"${name}" = "${name}" - make_interval(days => ${days})`).join(", ");
    await prisma.$executeRawUnsafe(`UPDATE "${table}" SET ${set}`);
  }
}
