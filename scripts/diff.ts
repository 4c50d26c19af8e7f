// `npm run db:diff -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with the
// SQL that takes the migrations directory to prisma/schema.prisma. The engine replays the
// existing migrations on a scratch database (created on the embedded server, or on DATABASE_URL's
// server, and dropped afterwards) and compares the result with the schema.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { DEFAULT_MIGRATIONS_DIR, LOCKFILE, LOCKFILE_CONTENT } from "../tooling/migrations/migrations-dir";
import { nextMigrationTimestamp } from "../tooling/migrations/next-migration-timestamp";
import { diffSchemaToSql } from "../tooling/migrations/wasm-engine";

const name = process.argv[2] ?? "";
if (!/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:diff -- <name>   (lowercase letters, digits and _)");
  process.exit(2);
}

try {
  await ensureLockfile();
  const sql = await withScratchDatabase((shadowDatabaseUrl) =>
    diffSchemaToSql({ from: "migrations", shadowDatabaseUrl }),
  );
  if (sql === "") {
    console.log("no changes");
  } else {
    const dir = path.join(DEFAULT_MIGRATIONS_DIR, `${await nextMigrationTimestamp()}_${name}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "migration.sql"), sql);
    console.log(`created ${dir}/migration.sql — review it, then npm run db:migrate`);
  }
} catch (error) {
  console.error(`keyhook: diff failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}

async function ensureLockfile(): Promise<void> {
  const file = path.join(DEFAULT_MIGRATIONS_DIR, LOCKFILE);
  if (existsSync(file)) return;
  await mkdir(DEFAULT_MIGRATIONS_DIR, { recursive: true });
  await writeFile(file, LOCKFILE_CONTENT);
}

/** An empty database for the engine to replay the migrations on, dropped afterwards. */
async function withScratchDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const scratch = `keyhook_shadow_${randomBytes(4).toString("hex")}`;
  // DATABASE_URL alone, not lib/core/config/env.ts: a diff needs no other setting (as `npm run db:migrate`).
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const server = await startEmbeddedPostgres();
    try {
      await server.createDatabase(scratch);
      try {
        return await work(server.adminUrl(scratch));
      } finally {
        await server.dropDatabase(scratch);
      }
    } finally {
      await server.stop();
    }
  }
  // On DATABASE_URL's server: its user needs CREATEDB (as for Prisma's own shadow database).
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${pg.escapeIdentifier(scratch)}`);
  try {
    const url = new URL(databaseUrl);
    url.pathname = `/${scratch}`;
    return await work(url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(scratch)} WITH (FORCE)`);
  }
}
