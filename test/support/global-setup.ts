// Starts one real PostgreSQL (embedded, data under .data/test-postgres) for the whole run and
// migrates a template database; each test file then clones the template (per-file-database.ts).
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../tooling/dev/embedded-postgres";
import { applyMigrations } from "../../tooling/migrations/wasm-engine";
import { findPgBouncer, startPgBouncer, type PgBouncer } from "./pgbouncer";

export const TEMPLATE_DATABASE = "keyhook_test_template";

declare module "vitest" {
  export interface ProvidedContext {
    postgresAdminUrl: string;
    /** The PgBouncer in front of the test server (0: none, see pgbouncerMissing). */
    pgbouncerPort: number;
    pgbouncerMissing: string;
  }
}

export default async function setup(project: TestProject) {
  const server = process.env.TEST_DATABASE_ADMIN_URL
    ? null
    : await startEmbeddedPostgres({
        // Overridable so several checkouts or agents can run suites side by side.
        dataDir: process.env.TEST_PG_DATA_DIR ?? ".data/test-postgres",
        port: Number(process.env.TEST_PG_PORT ?? 54339),
        database: "postgres",
      });
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? server!.adminUrl("postgres");

  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
  const pg = await import("pg");
  const admin = new pg.default.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  await applyMigrations({ databaseUrl: templateUrl.toString() });

  project.provide("postgresAdminUrl", adminUrl);
  // Transaction-mode PgBouncer for the tests that run through a pooler (test/pooler). Missing
  // pgbouncer makes those tests skip with the reason, or fail under CI=true (via-pooler.ts).
  let bouncer: PgBouncer | null = null;
  const found = findPgBouncer();
  if (found.bin !== null) {
    bouncer = await startPgBouncer({
      upstreamUrl: adminUrl,
      port: Number(process.env.TEST_PGBOUNCER_PORT ?? 54340),
      dir: process.env.TEST_PGBOUNCER_DIR ?? ".data/test-pgbouncer",
    });
  }
  project.provide("pgbouncerPort", bouncer?.port ?? 0);
  project.provide("pgbouncerMissing", found.bin === null ? found.reason : "");
  return async () => {
    await bouncer?.stop();
    await server?.stop();
  };
}
