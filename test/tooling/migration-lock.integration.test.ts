// `npm start` waiting for another replica's migrations (scripts/boot.ts → prepareDatabase →
// migration-lock.ts): says who it waits for, leaves at once on SIGTERM, gives up loudly after
// MIGRATION_LOCK_TIMEOUT_MS. The other replica is a session holding the lock on purpose.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it, inject } from "vitest";
import { MIGRATION_LOCK_KEY, withMigrationLock } from "@/tooling/migrations/migration-lock";
import { applyMigrations } from "@/tooling/migrations/wasm-engine";

const adminUrl = inject("postgresAdminUrl");
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function emptyDatabase(): Promise<string> {
  const name = `keyhook_lock_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  cleanup.push(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function emptyDatabaseWithLockHeld(): Promise<string> {
  const url = await emptyDatabase();
  const holder = new pg.Client({ connectionString: url, application_name: "keyhook-test-other-replica" });
  await holder.connect();
  await holder.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
  cleanup.push(() => holder.end());
  return url;
}

function startLauncher(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/boot.ts", "start"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      KEYHOOK_ALLOW_DEV_SECRET: "1",
      PORT: process.env.TEST_LAUNCHER_PORT ?? "4539",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  cleanup.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const waitFor = async (pattern: RegExp) => {
    while (!pattern.test(output) && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
    return output;
  };
  return { child, exited, waitFor, output: () => output };
}

describe("a replica waiting for another replica's migrations", () => {
  it("says who holds the lock, and leaves at once on SIGTERM (exit 143, nothing migrated)", async () => {
    const url = await emptyDatabaseWithLockHeld();
    const launcher = startLauncher({ DATABASE_URL: url });
    expect(await launcher.waitFor(/waiting for the migration lock/)).toMatch(
      /waiting for the migration lock held by PostgreSQL backend \d+ \(keyhook-test-other-replica/,
    );
    launcher.child.kill("SIGTERM");
    expect(await launcher.exited).toBe(143);
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query(`SELECT to_regclass('_prisma_migrations') AS table`);
    await check.end();
    expect(rows[0].table).toBeNull();
  });

  it("gives up after MIGRATION_LOCK_TIMEOUT_MS with one line naming the holder and the setting", async () => {
    const url = await emptyDatabaseWithLockHeld();
    const launcher = startLauncher({ DATABASE_URL: url, MIGRATION_LOCK_TIMEOUT_MS: "1000" });
    expect(await launcher.exited).toBe(1);
    expect(launcher.output()).toMatch(
      /keyhook: gave up after 1 s waiting for the migration lock held by PostgreSQL backend \d+ \(keyhook-test-other-replica.*MIGRATION_LOCK_TIMEOUT_MS=1000/,
    );
  });
});

describe("work under the migration lock", () => {
  it("is done again under the lock taken anew when the database went away meanwhile (a failover)", async () => {
    const url = await emptyDatabase();
    let calls = 0;
    const result = await withMigrationLock({ url, timeoutMs: 10_000 }, async () => {
      calls++;
      if (calls === 1) {
        // What a failover does to every session: the lock's own one included.
        const killer = new pg.Client({ connectionString: url });
        await killer.connect();
        await killer.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'keyhook-migrate'",
        );
        await killer.end();
        throw new Error("connection terminated");
      }
      return "migrated";
    });
    expect(result).toBe("migrated");
    expect(calls).toBe(2);
  });

  it("is done again under the same lock when the work met a read-only server its session outlived (a standby being promoted)", async () => {
    const url = await emptyDatabase();
    let calls = 0;
    const said: string[] = [];
    const result = await withMigrationLock({ url, timeoutMs: 10_000, log: (m) => said.push(m) }, async () => {
      if (++calls === 1) throw new Error("ERROR: cannot execute CREATE TABLE in a read-only transaction");
      return "migrated";
    });
    expect([result, calls]).toEqual(["migrated", 2]);
    expect(said).toEqual([expect.stringMatching(/^lost the database while migrating .*read-only.*; trying again/)]);
  });

  it("on a server that stays read-only, gives up at the timeout with PostgreSQL's own words", async () => {
    const url = await emptyDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET default_transaction_read_only = on`);
    await admin.end();
    await expect(applyMigrations({ databaseUrl: url, lockTimeoutMs: 1_500 })).rejects.toThrow(
      /cannot execute CREATE TABLE in a read-only transaction/,
    );
  });

  it("fails as it failed when its lock session is alive (a broken migration is not retried)", async () => {
    const url = await emptyDatabase();
    let calls = 0;
    await expect(
      withMigrationLock({ url, timeoutMs: 10_000 }, async () => {
        calls++;
        throw new Error("syntax error in migration");
      }),
    ).rejects.toThrow("syntax error in migration");
    expect(calls).toBe(1);
  });
});
