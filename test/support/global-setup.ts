// Starts one real PostgreSQL (embedded, data under .data/test-postgres) for the whole run and
// migrates a template database; each test file then clones the template (per-file-database.ts).
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../tooling/dev/embedded-postgres";
import { applyMigrations } from "../../tooling/migrations/wasm-engine";

export const TEMPLATE_DATABASE = "keyhook_test_template";

declare module "vitest" {
  export interface ProvidedContext {
    postgresAdminUrl: string;
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
  return async () => {
    await server?.stop();
  };
}
