// Starts the PRODUCTION build (`npm start`'s launcher) on a fresh database of a dedicated
// embedded PostgreSQL, for benchmarks. Everything it starts is stopped by `stop()`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../tooling/dev/embedded-postgres";
import { applyMigrations } from "../../tooling/migrations/wasm-engine";

/** The secret every benchmark signs with (not a real one). */
export const BENCH_SECRET = "whsec_" + Buffer.from("keyhook-benchmark-secret-0123456789").toString("base64");

export type AppUnderTest = {
  baseUrl: string;
  databaseUrl: string;
  /** Peak resident memory (VmHWM) of the largest process of the app, in MiB. */
  peakRssMiB: () => number;
  query: <T extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<T[]>;
  stop: () => Promise<void>;
};

export async function startAppUnderTest(options: { port: number; pgPort: number; env?: Record<string, string> }): Promise<AppUnderTest> {
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
    settings: { max_connections: "300" },
  });
  const admin = new pg.Client({ connectionString: server.adminUrl("postgres") });
  await admin.connect();
  await admin.query("DROP DATABASE IF EXISTS keyhook_bench WITH (FORCE)");
  await admin.query("CREATE DATABASE keyhook_bench");
  await admin.end();
  const databaseUrl = server.adminUrl("keyhook_bench");
  await applyMigrations({ databaseUrl });

  const app = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/boot.ts", "start"], {
    detached: true,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(options.port), WEBHOOK_SECRETS: BENCH_SECRET, NEXTAUTH_SECRET: "benchmark-only-session-secret-0123456789abcdef", NODE_ENV: "production", ...options.env },
  });
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (app.exitCode !== null) throw new Error(`the app exited with ${app.exitCode} before it was healthy`);
    const healthy = await fetch(`${baseUrl}/api/health`).then((r) => r.ok, () => false);
    if (healthy) break;
    if (Date.now() > deadline) throw new Error("the app did not become healthy within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  return {
    baseUrl,
    databaseUrl,
    peakRssMiB: () => Math.max(0, ...processGroup(app.pid!).map(peakRssOf)) / 1024,
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

function processGroup(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid;
      } catch {
        return false;
      }
    });
}

function peakRssOf(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
