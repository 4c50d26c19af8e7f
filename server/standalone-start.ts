// The entry of the deployable artifact: `node keyhook-start.mjs` in the standalone folder
// (bundled by server/build-standalone.ts; needs nothing from the checkout). Settings are
// validated as in `npm start`, pending migrations are applied (WebAssembly schema engine, its
// advisory lock serialises replicas starting together), then the production server starts.
// The container's database is external: DATABASE_URL is required here.
import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "../lib/core/config/env";
import { applyMigrations } from "../tooling/migrations/wasm-engine";
import { startProductionServer } from "./production-server";
import { runStartupChecks } from "./startup-checks";

const dir = path.dirname(fileURLToPath(import.meta.url));
// prisma/migrations, prisma/schema.prisma and .next are read relative to the folder.
process.chdir(dir);
(process.env as Record<string, string>).NODE_ENV = "production";

let config: ReturnType<typeof parseEnv>;
try {
  config = parseEnv(process.env);
  if (!config.DATABASE_URL)
    throw new Error("invalid setting DATABASE_URL: is required (the standalone server has no embedded PostgreSQL)");
} catch (error) {
  console.error(`keyhook: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

// WEB_CONCURRENCY > 1 runs this file again in each server process: only the primary migrates.
if (cluster.isPrimary) await migrate();

async function migrate(): Promise<void> {
  try {
    const started = performance.now();
    // Migrations and their lock go to PostgreSQL itself (DIRECT_DATABASE_URL) behind a pooler.
    const applied = await applyMigrations({
      databaseUrl: config.DATABASE_URL!,
      directDatabaseUrl: config.DIRECT_DATABASE_URL,
      lockTimeoutMs: config.MIGRATION_LOCK_TIMEOUT_MS,
    });
    const what = applied.length ? `applied ${applied.join(", ")}` : "no pending migrations";
    console.log(`keyhook: database ready; ${what} (${Math.round(performance.now() - started)} ms)`);
  } catch (error) {
    console.error(`keyhook: migration failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  try {
    for (const notice of await runStartupChecks(config)) console.log(`keyhook: ${notice}`);
  } catch (error) {
    console.error(`keyhook: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

// The config `next build` serialised, handed to Next the way its own standalone server.js does: the
// one private interface left (docs/decisions/0024-one-webhook-path.md). In this folder Next 16 has
// no documented way to get it: `next({ conf })` does not reach its router, and loading a
// next.config here needs Next's compiled webpack, which the standalone trace leaves out.
const { config: builtConfig } = JSON.parse(readFileSync(path.join(dir, ".next", "required-server-files.json"), "utf8"));
// eslint-disable-next-line no-restricted-syntax -- the exception above, kept to this one line
process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(builtConfig);

await startProductionServer({
  dir,
  port: config.PORT,
  hostname: config.LISTEN_HOST,
  drainMs: config.SHUTDOWN_DRAIN_MS,
  workers: config.WEB_CONCURRENCY,
});
