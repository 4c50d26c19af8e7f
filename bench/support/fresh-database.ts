// A benchmark's own database on an embedded server: dropped if a previous run left it, created
// and migrated, so every run starts from the same empty schema.
import pg from "pg";
import type { EmbeddedPostgres } from "../../tooling/dev/embedded-postgres";
import { applyMigrations } from "../../tooling/migrations/wasm-engine";

/** The URL of `database` on `server`, freshly created and migrated. */
export async function freshMigratedDatabase(server: EmbeddedPostgres, database: string): Promise<string> {
  const databaseUrl = await freshEmptyDatabase(server, database);
  await applyMigrations({ databaseUrl });
  return databaseUrl;
}

/** The URL of `database` on `server`, dropped if it was there and created empty. */
export async function freshEmptyDatabase(server: EmbeddedPostgres, database: string): Promise<string> {
  const admin = new pg.Client({ connectionString: server.adminUrl("postgres") });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  return server.adminUrl(database);
}
