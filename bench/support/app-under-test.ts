// Starts the PRODUCTION build (`npm start`'s launcher) on a fresh database of a dedicated
// embedded PostgreSQL, for benchmarks. Everything it starts is stopped by `stop()`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../tooling/dev/embedded-postgres";
import { applyMigrations } from "../../tooling/migrations/wasm-engine";
import { processTree, treeCpuSeconds } from "./process-cpu";
import { freshEmptyDatabase } from "./fresh-database";
import { waitUntilHealthy } from "./wait-until-healthy";
import { TEST_AUDIT_SIGNING_KEY, TEST_ENCRYPTION_KEYS } from "../../test/support/encryption-keys";

/** application_name of the benchmark's own connections (outcome counts), left out of PostgreSQL's CPU per arm. */
export const BENCH_APPLICATION_NAME = "keyhook-bench";

/** The secret every benchmark signs with (not a real one). */
export const BENCH_SECRET = "whsec_" + Buffer.from("keyhook-benchmark-secret-0123456789").toString("base64");

export type AppUnderTest = {
  baseUrl: string;
  databaseUrl: string;
  /** The launcher's pid: the root of the process tree (launcher and the next-server it starts). */
  pgid: number;
  /** The PostgreSQL server's maintenance database (for what watches every arm's backends). */
  adminUrl: string;
  /** A fresh, empty database on the same PostgreSQL server (for the baseline peer). */
  createDatabase: (name: string) => Promise<string>;
  outcomeCounts: () => Promise<Record<string, number>>;
  /** Resident memory now (VmRSS) of the largest process of the app, in MiB. */
  rssMiB: () => number;
  /** Peak resident memory (VmHWM) of the largest process of the app, in MiB. */
  peakRssMiB: () => number;
  /** CPU seconds (user + system) used so far by every process of the app. */
  cpuSeconds: () => number;
  query: <T extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<T[]>;
  stop: () => Promise<void>;
};

/**
 * Ports of the benchmarks: BENCH_PORT (app), BENCH_PEER_PORT (the bare node:http + pg consumer),
 * BENCH_BARE_PORT (the app's handler behind bare node:http), BENCH_NAIVE_PORT (the naive Next.js +
 * Prisma peer), BENCH_PG_PORT (PostgreSQL).
 */
export const BENCH_PORTS = {
  app: Number(process.env.BENCH_PORT ?? 4600),
  peer: Number(process.env.BENCH_PEER_PORT ?? 4601),
  bare: Number(process.env.BENCH_BARE_PORT ?? 4602),
  naive: Number(process.env.BENCH_NAIVE_PORT ?? 4606),
  pg: Number(process.env.BENCH_PG_PORT ?? 54349),
};

export async function startAppUnderTest(options: {
  port: number;
  pgPort: number;
  env?: Record<string, string>;
  /**
   * Keep the benchmark database of a previous run whose database comment is this label (a
   * 10M-row fill takes many minutes; the fill writes the label with COMMENT ON DATABASE).
   */
  keepDatabaseLabelled?: string;
}): Promise<AppUnderTest> {
  if (!existsSync(".next/BUILD_ID")) {
    console.log("bench: no production build yet, running `npm run build` …");
    const build = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
    if (build.status !== 0) throw new Error("npm run build failed");
  }
  const server: EmbeddedPostgres = await startEmbeddedPostgres({
    dataDir: ".data/bench-postgres",
    port: options.pgPort,
    database: "postgres",
    // pgbench at 128 clients plus the app's pool.
    settings: {
      max_connections: "300",
      shared_buffers: process.env.BENCH_PG_SHARED_BUFFERS ?? "1GB",
      maintenance_work_mem: "512MB",
    },
  });
  const admin = new pg.Client({ connectionString: server.adminUrl("postgres") });
  await admin.connect();
  const kept = options.keepDatabaseLabelled
    ? (
        await admin.query(
          "SELECT 1 FROM pg_database WHERE datname = 'keyhook_bench' AND shobj_description(oid, 'pg_database') = $1",
          [options.keepDatabaseLabelled],
        )
      ).rowCount === 1
    : false;
  if (!kept) {
    await admin.query("DROP DATABASE IF EXISTS keyhook_bench WITH (FORCE)");
    await admin.query("CREATE DATABASE keyhook_bench");
  }
  await admin.end();
  const databaseUrl = server.adminUrl("keyhook_bench");
  await applyMigrations({ databaseUrl });

  const app = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/boot.ts", "start"], {
    detached: true,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(options.port),
      WEBHOOK_SECRETS: BENCH_SECRET,
      NEXTAUTH_SECRET: "benchmark-only-session-secret-0123456789abcdef",
      SECRETS_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
      AUDIT_SIGNING_KEY: TEST_AUDIT_SIGNING_KEY,
      NODE_ENV: "production",
      // Node flags for the app's processes only (e.g. GC sizing experiments), not the load generator's.
      ...(process.env.BENCH_APP_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_APP_NODE_OPTIONS } : {}),
      ...options.env,
    },
  });
  const baseUrl = `http://127.0.0.1:${options.port}`;
  await waitUntilHealthy(app, baseUrl, "the app");

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: BENCH_APPLICATION_NAME });
  return {
    baseUrl,
    databaseUrl,
    pgid: app.pid!,
    adminUrl: server.adminUrl("postgres"),
    createDatabase: (name) => freshEmptyDatabase(server, name),
    outcomeCounts: async () => {
      const { rows } = await pool.query<{ outcome: string; n: string }>(
        "SELECT outcome, count(*) AS n FROM processed_events GROUP BY outcome ORDER BY outcome",
      );
      return Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)]));
    },
    rssMiB: () => Math.max(0, ...processTree(app.pid!).map((pid) => statusKiB(pid, "VmRSS"))) / 1024,
    peakRssMiB: () => Math.max(0, ...processTree(app.pid!).map(peakRssOf)) / 1024,
    cpuSeconds: () => treeCpuSeconds(app.pid!),
    query: async (sql, params) => (await pool.query(sql, params)).rows,
    stop: async () => {
      await pool.end();
      const exited = new Promise((resolve) => app.once("exit", resolve));
      try {
        process.kill(-app.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      await exited;
      await server.stop();
    },
  };
}

function peakRssOf(pid: number): number {
  return statusKiB(pid, "VmHWM");
}

function statusKiB(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
