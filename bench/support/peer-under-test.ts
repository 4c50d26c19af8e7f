// The baselines bench:ingest measures beside the app, each a server in its own process group (so
// its CPU time can be read like the app's) on its own database of the benchmark's PostgreSQL:
//   startPeer         the bare node:http + pg consumer (bench/peer/consumer.ts)
//   startBareHandler  the app's route handler behind bare node:http, without Next
//                     (test/support/ingest-server.ts, which the fault tests run too)
//   (the naive Next.js + Prisma peer: naive-peer.ts, through startServerUnderTest)
import { spawn } from "node:child_process";
import pg from "pg";
import { withServerNodeOptions } from "../../server/server-node-options";
import { applyMigrations } from "../../tooling/migrations/wasm-engine";
import { BENCH_APPLICATION_NAME, BENCH_SECRET } from "./app-under-test";
import type { LoadTarget } from "./load-phase";
import { waitUntilHealthy } from "./wait-until-healthy";
import { TEST_AUDIT_SIGNING_KEY, TEST_ENCRYPTION_KEYS } from "../../test/support/encryption-keys";

export type PeerUnderTest = LoadTarget & { databaseUrl: string; pgid: number; stop: () => Promise<void> };

export function startPeer(options: { databaseUrl: string; port: number }): Promise<PeerUnderTest> {
  return startServerUnderTest({
    ...options,
    nodeArgs: ["--import", "tsx", "bench/peer/consumer.ts"],
    env: {},
    // The peer keeps no outcome column: every claimed event was applied.
    outcomeSql: "SELECT 'applied' AS outcome, count(*) AS n FROM webhook_events",
  });
}

/** The app's handler without Next, on `databaseUrl` (an empty database: migrated here). */
export async function startBareHandler(options: { databaseUrl: string; port: number }): Promise<PeerUnderTest> {
  await applyMigrations({ databaseUrl: options.databaseUrl });
  return startServerUnderTest({
    ...options,
    // Resolved as the app's server modules are (server-only), with the app server's V8 flags.
    nodeArgs: ["--conditions=react-server", "--import", "tsx", "test/support/ingest-server.ts"],
    asAppServer: true,
    env: {
      INGEST_SERVER_PORT: String(options.port),
      WEBHOOK_SECRETS: BENCH_SECRET,
      NEXTAUTH_SECRET: "benchmark-only-session-secret-0123456789abcdef",
      SECRETS_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
      AUDIT_SIGNING_KEY: TEST_AUDIT_SIGNING_KEY,
    },
    outcomeSql: "SELECT outcome, count(*) AS n FROM processed_events GROUP BY outcome",
  });
}

export async function startServerUnderTest(options: {
  databaseUrl: string;
  port: number;
  /** Working directory of the server (default: the checkout). */
  cwd?: string;
  nodeArgs: string[];
  env: Record<string, string>;
  outcomeSql: string;
  asAppServer?: boolean;
}): Promise<PeerUnderTest> {
  const env = { ...process.env, ...options.env, DATABASE_URL: options.databaseUrl, PORT: String(options.port) };
  const child = spawn(process.execPath, options.nodeArgs, {
    cwd: options.cwd,
    detached: true,
    // stdout (the bare handler's log line per event) goes where the app's goes: nowhere.
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...(options.asAppServer ? withServerNodeOptions(env) : env), NODE_ENV: "production" },
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const baseUrl = `http://127.0.0.1:${options.port}`;
  await waitUntilHealthy(child, baseUrl, options.nodeArgs.at(-1)!);
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: 1,
    application_name: BENCH_APPLICATION_NAME,
  });
  return {
    baseUrl,
    databaseUrl: options.databaseUrl,
    pgid: child.pid!,
    outcomeCounts: async () => {
      const { rows } = await pool.query<{ outcome: string; n: string }>(options.outcomeSql);
      return Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)]));
    },
    stop: async () => {
      await pool.end();
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      await exited;
    },
  };
}
