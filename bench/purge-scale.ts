// `npm run bench:purge`: the retention purge at scale, next to live ingest (issue 5). Prints figures,
// asserts nothing.
//   1. fills BENCH_ROWS ledger rows (and one receipt each) with generate_series: one day's worth
//      (BENCH_ROWS / 14) just past the 14-day window, the rest inside it (the older half of those
//      past the 7-day payload window), then folds the dashboard rollups (the purge subtracts from them);
//   2. ingest alone: signed unique events through a real process serving the ingest handler
//      (test/support/ingest-server.ts), autocannon, 8 connections → p50/p99;
//   3. ingest while the purge runs (default batch 5,000, pause 50 ms), until the purge ends;
//   4. ingest alone again, on the purged ledger.
// Prints p99 during the purge over p99 alone (before and after, averaged): the target is < 1.20.
// Writes bench/results/purge-scale.json and a line in bench/results/history.ndjson. Everything
// runs on the same 2 cores, PostgreSQL included.
//   BENCH_ROWS (default 10000000), BENCH_EXPIRED_ROWS (default one day's worth, BENCH_ROWS / 14),
//   BENCH_SECONDS (per ingest-alone phase, default 20), BENCH_CONNECTIONS (8), BENCH_PG_PORT (54521)
import os from "node:os";
import autocannon from "autocannon";
import pg from "pg";
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { applyMigrations } from "../tooling/migrations/wasm-engine";
import { startIngestServer } from "../test/support/child-process";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";
import { writeResult } from "./support/results";

const SECRET = "whsec_" + Buffer.from("keyhook-purge-benchmark-secret-0123").toString("base64");
const TOTAL_ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const EXPIRED_ROWS = Number(process.env.BENCH_EXPIRED_ROWS ?? Math.round(TOTAL_ROWS / 14));
const FILL_CHUNK = 100_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const PG_PORT = Number(process.env.BENCH_PG_PORT ?? 54521);
const DATABASE = "keyhook_purge_bench";

type LoadPhase = {
  name: string;
  seconds: number;
  requests: number;
  requestsPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  loadAvg1m: number;
};

assertSignerMatchesLibrary(SECRET);
const server = await startEmbeddedPostgres({ dataDir: ".data/h-retention-bench", port: PG_PORT, database: "postgres" });
const admin = new pg.Client({ connectionString: server.adminUrl("postgres") });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${DATABASE}`);
await admin.end();
const databaseUrl = server.adminUrl(DATABASE);
await applyMigrations({ databaseUrl });

// Before lib/env.ts reads the configuration (once) for the in-process purge.
process.env.DATABASE_URL = databaseUrl;
process.env.LOG_LEVEL ??= "warn";
const { runPurge } = await import("../lib/retention/run-purge");
const { getRetentionStats } = await import("../lib/retention/retention-stats");
const { disconnectDb } = await import("../lib/db");
const { foldRollups } = await import("../lib/rollups/fold-rollups");

const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
let ingest: Awaited<ReturnType<typeof startIngestServer>> | undefined;

try {
  // 1. Fill. Rows are in received_at order like real ones (ids grow with time).
  const fillStarted = performance.now();
  for (let from = 1; from <= TOTAL_ROWS; from += FILL_CHUNK) {
    const to = Math.min(TOTAL_ROWS, from + FILL_CHUNK - 1);
    await db.query(
      `WITH rows AS (
         SELECT g, CASE WHEN g <= $3
                     THEN now() - interval '15 days' + (g * interval '23 hours' / $3)
                     ELSE now() - interval '13 days' + ((g - $3) * interval '13 days' / ($4 - $3 + 1))
                   END AS at
         FROM generate_series($1::int, $2::int) AS g)
       , claims AS (
         INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, payload, occurred_at, received_at, processed_at)
         SELECT 'fill-' || (g % 1000), 'evt_fill_' || g, 'key.created', 'key_fill_' || g, g, 'applied',
                jsonb_build_object('id', 'evt_fill_' || g, 'type', 'key.created', 'tenant_id', 'fill-' || (g % 1000),
                  'key_id', 'key_fill_' || g, 'sequence', g, 'occurred_at', at,
                  'data', jsonb_build_object('prefix', 'ik_live_' || lpad((g % 10000)::text, 4, '0'), 'scopes', jsonb_build_array('rosters:read', 'rosters:write'))),
                at, at, at
         FROM rows)
       INSERT INTO receipts (received_at, webhook_id, tenant_id, event_id, signature_verdict, status, outcome, latency_micros, body_bytes)
       SELECT at, 'evt_fill_' || g, 'fill-' || (g % 1000), 'evt_fill_' || g, 'valid', 200, 'applied', 4000, 330 FROM rows`,
      [from, to, EXPIRED_ROWS, TOTAL_ROWS],
    );
    process.stdout.write(`\rfilled ${to.toLocaleString("en")} / ${TOTAL_ROWS.toLocaleString("en")} rows`);
  }
  await db.query("VACUUM ANALYZE processed_events, receipts");
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  console.log(` in ${fillSeconds.toFixed(1)} s (with VACUUM ANALYZE)`);

  const foldStarted = performance.now();
  await foldRollups();
  await foldRollups();
  console.log(`rollups folded in ${((performance.now() - foldStarted) / 1000).toFixed(1)} s`);

  const statsStarted = performance.now();
  const before = await getRetentionStats();
  const statsMsBefore = performance.now() - statsStarted;

  // 2–4. Ingest load, the purge in the middle.
  ingest = await startIngestServer({
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRETS: SECRET,
    NODE_ENV: "production",
    NEXTAUTH_SECRET: "benchmark-only-session-secret-0123456789abcdef",
    LOG_LEVEL: "silent",
  });
  const stream = createEventStream({ secret: SECRET, tenants: 1000, runId: Date.now().toString(36) });
  const url = `http://127.0.0.1:${ingest.port}/api/webhooks/keys`;
  // One delivery first: a misconfigured server would otherwise show up as "fast" errors.
  const probe = stream.next();
  const probeAnswer = await fetch(url, { method: "POST", body: probe.body, headers: probe.headers });
  if (probeAnswer.status !== 200)
    throw new Error(
      `ingest server answered ${probeAnswer.status}: ${await probeAnswer.text()}\n${ingest.output.join("")}`,
    );
  await load("warm-up", 10);
  const alone = await load("ingest alone", SECONDS);

  const batchMs: number[] = [];
  const slowestBatchMs: Record<string, number> = {};
  const purgeStarted = performance.now();
  const purging = runPurge({
    trigger: "manual",
    onBatch: (b) => {
      batchMs.push(b.durationMs);
      slowestBatchMs[b.target] = round(Math.max(slowestBatchMs[b.target] ?? 0, b.durationMs));
    },
  });
  const during = await load("ingest + purge", null, purging);
  const run = await purging;
  const purgeSeconds = (performance.now() - purgeStarted) / 1000;
  const afterPurge = await load("ingest alone, after purge", SECONDS);
  // Idempotence at scale: what a nightly run costs when there is (almost) nothing left to do.
  const second = await runPurge({ trigger: "manual" });

  const statsAfterStarted = performance.now();
  const after = await getRetentionStats();
  const statsMsAfter = performance.now() - statsAfterStarted;

  const sorted = [...batchMs].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  const result = {
    at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      node: process.version,
      note: "load generator, app, purge and PostgreSQL share these cores with other work",
    },
    fill: { rows: TOTAL_ROWS, expiredRows: EXPIRED_ROWS, receipts: TOTAL_ROWS, seconds: round(fillSeconds) },
    purge: {
      status: run.status,
      error: run.error,
      seconds: round(purgeSeconds),
      claimsDeleted: run.claimsDeleted,
      receiptsDeleted: run.receiptsDeleted,
      payloadsCleared: run.payloadsCleared,
      batches: run.batches,
      batchSize: 5000,
      pauseMs: 50,
      batchMs: {
        p50: round(pct(50)),
        p99: round(pct(99)),
        max: round(sorted.at(-1) ?? 0),
        slowestByTarget: slowestBatchMs,
      },
      rowsPerSecond: Math.round((run.claimsDeleted + run.receiptsDeleted) / purgeSeconds),
      secondRun: {
        status: second.status,
        ms: second.durationMs,
        claimsDeleted: second.claimsDeleted,
        receiptsDeleted: second.receiptsDeleted,
        payloadsCleared: second.payloadsCleared,
      },
    },
    ledger: {
      before: {
        claimRows: before.claimRows,
        claimMiB: mib(before.claimBytes),
        receiptRows: before.receiptRows,
        receiptMiB: mib(before.receiptBytes),
        statsQueryMs: Math.round(statsMsBefore),
      },
      after: {
        claimRows: after.claimRows,
        claimMiB: mib(after.claimBytes),
        receiptRows: after.receiptRows,
        receiptMiB: mib(after.receiptBytes),
        statsQueryMs: Math.round(statsMsAfter),
      },
    },
    ingest: [alone, during, afterPurge],
  };

  console.log(
    `\nfill: ${TOTAL_ROWS.toLocaleString("en")} claims + receipts (${EXPIRED_ROWS.toLocaleString("en")} expired) in ${result.fill.seconds} s`,
  );
  console.log(
    `purge: ${run.status} in ${result.purge.seconds} s — ${run.claimsDeleted.toLocaleString("en")} claims, ${run.receiptsDeleted.toLocaleString("en")} receipts deleted, ` +
      `${run.payloadsCleared.toLocaleString("en")} payloads cleared, ${run.batches} batches (p50 ${result.purge.batchMs.p50} ms, p99 ${result.purge.batchMs.p99} ms, max ${result.purge.batchMs.max} ms; slowest by target ${JSON.stringify(slowestBatchMs)})`,
  );
  console.log(
    `second run right after: ${second.status} in ${second.durationMs} ms (${second.claimsDeleted} claims, ${second.payloadsCleared} payloads)`,
  );
  console.log(
    `ledger: ${before.claimRows.toLocaleString("en")} → ${after.claimRows.toLocaleString("en")} rows, ${result.ledger.before.claimMiB} → ${result.ledger.after.claimMiB} MiB (space is reused, not returned); stats query ${result.ledger.before.statsQueryMs} ms → ${result.ledger.after.statsQueryMs} ms`,
  );
  console.log("\nphase                        secs    req/s   p50 ms  p90 ms  p99 ms  max ms  non-2xx errors load1m");
  for (const p of result.ingest) {
    console.log(
      `${p.name.padEnd(28)} ${p.seconds.toFixed(1).padStart(5)} ${p.requestsPerSec.toFixed(0).padStart(8)} ${p.p50.toFixed(1).padStart(8)} ${p.p90.toFixed(1).padStart(7)} ${p.p99.toFixed(1).padStart(7)} ${p.max.toFixed(0).padStart(7)} ${String(p.non2xx).padStart(8)} ${String(p.errors).padStart(6)} ${p.loadAvg1m.toFixed(2).padStart(6)}`,
    );
  }
  const p99Alone = (alone.p99 + afterPurge.p99) / 2;
  const p99Ratio = Math.round((during.p99 / p99Alone) * 100) / 100;
  console.log(
    `\ningest p99 during the purge / alone (mean of before and after): ${during.p99} / ${p99Alone} ms = ${p99Ratio} (target < 1.20)`,
  );
  writeResult("purge-scale", { ...result, p99Ratio });

  /** Fixed duration, or (seconds = null) until `until` settles. */
  async function load(name: string, seconds: number | null, until?: Promise<unknown>): Promise<LoadPhase> {
    const started = performance.now();
    const loadAvg1m = os.loadavg()[0]!;
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url,
          connections: CONNECTIONS,
          duration: seconds ?? 3600,
          requests: [
            {
              method: "POST",
              setupRequest: (request) => {
                const next = stream.next();
                return { ...request, body: next.body, headers: next.headers };
              },
            },
          ],
        },
        (error, finished) => (error ? reject(error) : resolve(finished)),
      );
      until?.finally(() => instance.stop());
    });
    return {
      name,
      seconds: round((performance.now() - started) / 1000),
      requests: result.requests.total,
      requestsPerSec: result.requests.total / ((performance.now() - started) / 1000),
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      loadAvg1m,
    };
  }
} finally {
  await ingest?.kill("SIGTERM");
  await db.end();
  await disconnectDb();
  await server.stop();
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function mib(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}
