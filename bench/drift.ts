// `npm run bench:drift`: the drift check through 100,000 provider keys next to live ingest.
// Prints figures, asserts nothing.
//   1. a fresh database (embedded PostgreSQL) and the provider simulator (in memory) holding
//      BENCH_DRIFT_KEYS keys over BENCH_DRIFT_DISTRICTS districts (bulk-added: revoked keys and one
//      active key per district, which our database also holds, so the check finds no difference);
//   2. ingest alone: signed unique events through a real process serving the ingest handler
//      (test/support/ingest-server.ts), autocannon, 8 connections → p50/p99;
//   3. ingest while the drift check pages through every district (the provider answers one page
//      429 with Retry-After in the middle), until it is done;
//   4. ingest alone again.
// The load's own districts (1,000, keys the provider never issued) are compared too: each is one
// page and one difference. Prints the check's duration, pages and differences, and ingest p99 during the check over p99
// alone (before, and the mean of before and after): the target is ≤ 1.5.
// Writes bench/results/drift.json and a line in bench/results/history.ndjson.
//   BENCH_DRIFT_KEYS (100000), BENCH_DRIFT_DISTRICTS (10), BENCH_DRIFT_PAGE (DRIFT_PAGE_SIZE's
//   default, 500), BENCH_SECONDS (per ingest-alone phase, 15), BENCH_CONNECTIONS (8),
//   BENCH_PG_PORT (54561)
import { spawn } from "node:child_process";
import os from "node:os";
import pg from "pg";
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { startIngestServer } from "../test/support/child-process";
import { startSimulator } from "../test/support/simulator";
import { DEV_PROVIDER_API_KEY } from "../lib/core/config/env";
import type { DriftRunSummary } from "../lib/operations/drift/drift-runs";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";
import { runIngestLoadUntil } from "./support/load-phase";
import { ratio, writeResult } from "./support/results";
import { freshMigratedDatabase } from "./support/fresh-database";
import { TEST_AUDIT_SIGNING_KEY, TEST_ENCRYPTION_KEYS } from "../test/support/encryption-keys";

const SECRET = "whsec_" + Buffer.from("keyhook-drift-benchmark-secret-0123").toString("base64");
const KEYS = Number(process.env.BENCH_DRIFT_KEYS ?? 100_000);
const DISTRICTS = Number(process.env.BENCH_DRIFT_DISTRICTS ?? 10);
const PAGE = Number(process.env.BENCH_DRIFT_PAGE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const PG_PORT = Number(process.env.BENCH_PG_PORT ?? 54561);
const DATABASE = "keyhook_drift_bench";

type LoadPhase = {
  name: string;
  seconds: number;
  requests: number;
  requestsPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  loadAvg1m: number;
};

assertSignerMatchesLibrary(SECRET);
const server = await startEmbeddedPostgres({ dataDir: ".data/drift-bench", port: PG_PORT, database: "postgres" });
const databaseUrl = await freshMigratedDatabase(server, DATABASE);

process.env.DATABASE_URL = databaseUrl;
process.env.LOG_LEVEL ??= "warn";

const sim = await startSimulator({ env: { PROVIDER_SIM_DATA_DIR: "memory" } });
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
let ingest: Awaited<ReturnType<typeof startIngestServer>> | undefined;

try {
  // 1. The provider's keys and ours: per district, revoked keys at the provider only, and one
  //    active key on both sides.
  const fillStarted = performance.now();
  const perDistrict = Math.floor(KEYS / DISTRICTS);
  for (let d = 0; d < DISTRICTS; d++) {
    const tenant = `district-drift-${String(d).padStart(3, "0")}`;
    await sim.control("POST", "/_sim/keys/bulk", { tenant_id: tenant, count: perDistrict - 1, status: "revoked" });
    await sim.control("POST", "/_sim/keys/bulk", {
      tenant_id: tenant,
      count: 1,
      status: "active",
      id_prefix: "key_active_",
    });
    const truth = await sim.control<{ tenants: { keys: { id: string; status: string }[] }[] }>(
      "GET",
      `/_sim/truth?tenant=${tenant}`,
    );
    const active = truth.tenants[0]!.keys.find((k) => k.status === "active")!.id;
    await db.query(`INSERT INTO tenants (id) VALUES ($1)`, [tenant]);
    await db.query(`INSERT INTO api_keys (id, tenant_id, status, activated_seq) VALUES ($1, $2, 'active', 1)`, [
      active,
      tenant,
    ]);
  }
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  console.log(
    `provider: ${(perDistrict * DISTRICTS).toLocaleString("en")} keys in ${DISTRICTS} districts (${fillSeconds.toFixed(1)} s)`,
  );

  ingest = await startIngestServer({
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRETS: SECRET,
    NODE_ENV: "production",
    NEXTAUTH_SECRET: "benchmark-only-session-secret-0123456789abcdef",
    SECRETS_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
    AUDIT_SIGNING_KEY: TEST_AUDIT_SIGNING_KEY,
    LOG_LEVEL: "silent",
  });
  const stream = createEventStream({ secret: SECRET, tenants: 1000, runId: Date.now().toString(36) });
  const url = `http://127.0.0.1:${ingest.port}/api/webhooks/keys`;
  const probe = stream.next();
  const probeAnswer = await fetch(url, { method: "POST", body: probe.body, headers: probe.headers });
  if (probeAnswer.status !== 200)
    throw new Error(`ingest server answered ${probeAnswer.status}: ${await probeAnswer.text()}`);
  await load("warm-up", 5);
  const alone = await load("ingest alone", SECONDS);

  // 3. The check in its own process, as the worker runs it (`npm run alerts -- drift`): in this
  //    process it would steal the load generator's event loop and inflate the latencies measured.
  //    When it is half-way through, the provider answers one page 429 (Retry-After: 1 s).
  const totalPages = DISTRICTS * Math.ceil(perDistrict / PAGE);
  const checkStarted = performance.now();
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "scripts/alerts.ts", "drift"],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PROVIDER_URL: sim.url,
        PROVIDER_API_KEY: DEV_PROVIDER_API_KEY,
        DRIFT_PAGE_SIZE: String(PAGE),
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const checking = new Promise<DriftRunSummary>((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(output.trim().split("\n").at(-1)!) as DriftRunSummary)
        : reject(new Error(`drift check exited ${code}: ${output}`)),
    ),
  );
  let faulted = false;
  const watcher = setInterval(() => {
    void db.query<{ pages: number }>("SELECT pages FROM drift_runs ORDER BY id DESC LIMIT 1").then(({ rows }) => {
      if (!faulted && (rows[0]?.pages ?? 0) >= totalPages / 2) {
        faulted = true;
        void sim.setFaults({ apiRateLimitNext: 1, apiRetryAfterSeconds: 1 });
      }
    });
  }, 200);
  checking.finally(() => clearInterval(watcher)).catch(() => undefined);
  const during = await load("ingest + drift check", null, checking);
  const run = await checking;
  const checkSeconds = (performance.now() - checkStarted) / 1000;
  const calls = await sim.control<{ calls: { status: number; path: string }[] }>("GET", "/_sim/api-calls");
  const rateLimited = calls.calls.filter((c) => c.status === 429).length;
  const after = await load("ingest alone, after", SECONDS);

  const p99Alone = (alone.p99 + after.p99) / 2;
  const result = {
    provider: { keys: perDistrict * DISTRICTS, districts: DISTRICTS, pageSize: PAGE },
    check: { ...run, seconds: Math.round(checkSeconds * 10) / 10, rateLimited },
    ingest: [alone, during, after],
    p99RatioBefore: ratio(during.p99, alone.p99),
    p99RatioBeforeAfter: ratio(during.p99, p99Alone),
  };
  console.log(
    `\ndrift check: ${run.status} in ${result.check.seconds} s — ${run.tenantsDone} districts (${DISTRICTS} at the provider, the rest the load's own), ${run.pages} pages, ${run.keysCompared.toLocaleString("en")} keys, ${run.differences} differences (the load's districts: keys the provider never issued), ${rateLimited} × 429 retried`,
  );
  console.log("\nphase                        secs    req/s   p50 ms  p99 ms  non-2xx errors load1m");
  for (const p of result.ingest) {
    console.log(
      `${p.name.padEnd(28)} ${p.seconds.toFixed(1).padStart(5)} ${p.requestsPerSec.toFixed(0).padStart(8)} ${p.p50.toFixed(1).padStart(8)} ${p.p99.toFixed(1).padStart(7)} ${String(p.non2xx).padStart(8)} ${String(p.errors).padStart(6)} ${p.loadAvg1m.toFixed(2).padStart(6)}`,
    );
  }
  console.log(
    `\ningest p99 during the check / before: ${during.p99} / ${alone.p99} ms = ${result.p99RatioBefore}; / mean of before and after (${p99Alone} ms) = ${result.p99RatioBeforeAfter} (target ≤ 1.5)`,
  );
  writeResult("drift", result);

  async function load(name: string, seconds: number | null, until?: Promise<unknown>): Promise<LoadPhase> {
    const started = performance.now();
    const loadAvg1m = os.loadavg()[0]!;
    const finished = await runIngestLoadUntil({
      url,
      connections: CONNECTIONS,
      seconds,
      until,
      nextDelivery: () => {
        const next = stream.next();
        return { body: next.body, headers: next.headers };
      },
    });
    const elapsed = (performance.now() - started) / 1000;
    return {
      name,
      seconds: Math.round(elapsed * 10) / 10,
      requests: finished.requests.total,
      requestsPerSec: finished.requests.total / elapsed,
      p50: finished.latency.p50,
      p99: finished.latency.p99,
      non2xx: finished.non2xx,
      errors: finished.errors + finished.timeouts,
      loadAvg1m,
    };
  }
} finally {
  await ingest?.kill("SIGTERM");
  await sim.dispose();
  await db.end();
  await server.stop();
}
