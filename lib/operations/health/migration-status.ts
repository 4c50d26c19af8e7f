import "server-only";
// Migration state for the health route: two plain queries, no WebAssembly engine, no lock.
import pg from "pg";
import { driverUrl } from "../../core/config/database-urls";
import { DEFAULT_MIGRATIONS_DIR, listMigrationNames } from "./migration-names";

type MigrationStatus = {
  /** In the migrations directory, not (successfully) applied: the app would run on an old schema. */
  pending: string[];
  /** Recorded as failed and not rolled back: `applyMigrations` refuses to continue until fixed. */
  failed: string[];
};

type Row = { migration_name: string; finished: boolean; rolled_back: boolean };
/** Runs one SELECT and returns its rows, e.g. `(sql) => prisma.$queryRawUnsafe(sql)`. */
type QueryRows = (sql: string) => Promise<unknown[]>;

/** Pass `query` to reuse an existing pool (the app's Prisma client), or `databaseUrl` to connect once. */
export async function migrationStatus(options: {
  databaseUrl?: string;
  query?: QueryRows;
  migrationsDir?: string;
}): Promise<MigrationStatus> {
  const names = await listMigrationNames(options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
  const rows = options.query ? await readApplied(options.query) : await withClient(options.databaseUrl, readApplied);
  const applied = new Set(rows.filter((r) => r.finished && !r.rolled_back).map((r) => r.migration_name));
  const failed = rows.filter((r) => !r.finished && !r.rolled_back).map((r) => r.migration_name);
  return { pending: names.filter((name) => !applied.has(name)), failed: [...new Set(failed)].sort() };
}

async function readApplied(query: QueryRows): Promise<Row[]> {
  // A database never migrated has no table: everything is pending.
  const [found] = (await query(`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS "exists"`)) as {
    exists: boolean;
  }[];
  if (!found?.exists) return [];
  return (await query(
    `SELECT migration_name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back
       FROM _prisma_migrations`,
  )) as Row[];
}

async function withClient<T>(databaseUrl: string | undefined, work: (query: QueryRows) => Promise<T>): Promise<T> {
  if (!databaseUrl) throw new Error("migrationStatus needs databaseUrl or query");
  // Plain, unnamed statements: safe through a pooler too.
  const client = new pg.Client({ connectionString: driverUrl(databaseUrl), connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await work(async (sql) => (await client.query(sql)).rows);
  } finally {
    await client.end();
  }
}
