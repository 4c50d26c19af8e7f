// `npm run bench:purge`: one night's purge at scale next to live ingest. Prints figures,
// asserts nothing.
//   0. the database: the dashboard benchmark's fill (test/support/fill-scale.ts, 10,000,000 claims
//      + 10,000,000 receipts over 14 days, 100,000 districts) in .data/bench-postgres, reused when
//      its label matches (a copy of another worktree's fill works: see docs/performance.md), else filled here;
//   1. picks the night: `now` = the oldest claim + the 14-day window + BENCH_PURGE_HOURS (24), with
//      payloads kept 13 days, so the purge deletes one day of claims and receipts and clears one day
//      of payloads — a steady-state night, not a first purge of a week of payloads;
//   2. saves that day (bench/support/purge-day.ts) and, after each purge, restores it, so the next
//      run (or the next mode) purges the same rows;
//   3. per mode (BENCH_PURGE_MODES, default "paced"; "one-pass" = paced with the payload clear in one
//      walk, as before decision 0014; "fixed" = 5,000 rows / 50 ms in one pass, the old defaults):
//      interleaved slices of BENCH_SLICE_SECONDS (20): ingest alone, ingest + purge, ingest alone,
//      … until the purge ends (the purge is held between two batches for the alone slices), so
//      both kinds of slice share whatever else this shared machine does at that moment — signed
//      unique events through a real process serving the ingest handler (test/support/ingest-server.ts),
//      autocannon, BENCH_CONNECTIONS (8) connections — with what PostgreSQL waited on meanwhile
//      (bench/support/pg-activity.ts: ingest's wait events, WAL MiB/s, full-page images, checkpoints,
//      autovacuum);
// Prints each purge slice's p99 over the mean of the alone slices either side, their time-weighted
// mean (target < 1.20) and median, and the throughput ratio, with the load average.
// BENCH_REWRITE_CLAIMS=1: CLUSTER the claims on (received_at, id) first: rows in arrival order at
// the table's fillfactor (migration 20261201120000), the layout a production table has, where each
// row is written once in time order (earlier benchmark runs' restores scatter a day's rows).
// Writes bench/results/purge-scale.json and a line in history.ndjson.
//   BENCH_PG_PORT (54521), BENCH_CLAIMS / BENCH_RECEIPTS / BENCH_DISTRICTS (the fill, 10,000,000 /
//   10,000,000 / 100,000), BENCH_PURGE_HOURS (24)
import os from "node:os";
import pg from "pg";
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { applyMigrations } from "../tooling/migrations/wasm-engine";
import { startIngestServer } from "../test/support/child-process";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";
import { runIngestLoadUntil } from "./support/load-phase";
import { fillScale } from "../test/support/fill-scale";
import { watchActivity, type ActivityReport } from "./support/pg-activity";
import { dropSaved, hasSavedDay, restoreDay, saveDay } from "./support/purge-day";
import { writeResult } from "./support/results";
import { TEST_AUDIT_SIGNING_KEY, TEST_ENCRYPTION_KEYS } from "../test/support/encryption-keys";

const SECRET = "whsec_" + Buffer.from("keyhook-purge-benchmark-secret-0123").toString("base64");
const scale = {
  claims: Number(process.env.BENCH_CLAIMS ?? 10_000_000),
  receipts: Number(process.env.BENCH_RECEIPTS ?? 10_000_000),
  districts: Number(process.env.BENCH_DISTRICTS ?? 100_000),
};
const SLICE = Number(process.env.BENCH_SLICE_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const PG_PORT = Number(process.env.BENCH_PG_PORT ?? 54521);
const PURGE_HOURS = Number(process.env.BENCH_PURGE_HOURS ?? 24);
const MODES = (process.env.BENCH_PURGE_MODES ?? "paced").split(",").map((m) => m.trim());
// Rewrites processed_events first (CLUSTER, in arrival order) so the fill's pages get the table's
// fillfactor, as rows ingested after migration 20261201120000 have it. Once per fill is enough.
const REWRITE_CLAIMS = process.env.BENCH_REWRITE_CLAIMS === "1";
// BENCH_RESTORE=0 leaves the last mode's day purged (saved tables kept; the next run restores it).
const RESTORE = process.env.BENCH_RESTORE !== "0";
const RETENTION_DAYS = 14;
const HOUR_MS = 3_600_000;
// The same label as bench:dashboard's, so one fill serves both.
const LABEL = `fill ${scale.claims}/${scale.receipts}/${scale.districts}`;

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
  activity: ActivityReport;
};

// "one-pass": paced, but the payload clear in one walk (decision 0008's purge, before 0014's passes).
const MODE_OPTIONS: Record<string, object> = {
  paced: {},
  // BENCH_PACING='{"targetBatchMs":20}' (JSON, PurgePacing fields): the paced purge with other pacing.
  tuned: { pacing: JSON.parse(process.env.BENCH_PACING ?? "{}") as object },
  "one-pass": { pacing: { payloadPasses: 1 } },
  fixed: { batchSize: 5_000, pauseMs: 50, pacing: { payloadPasses: 1 } },
};
for (const mode of MODES) {
  if (!(mode in MODE_OPTIONS))
    throw new Error(`BENCH_PURGE_MODES: unknown mode ${mode} (paced, tuned, one-pass, fixed)`);
}
assertSignerMatchesLibrary(SECRET);
const server = await startEmbeddedPostgres({
  dataDir: ".data/bench-postgres",
  port: PG_PORT,
  database: "postgres",
  settings: { max_connections: "300", shared_buffers: process.env.BENCH_PG_SHARED_BUFFERS ?? "1GB" },
});
const admin = new pg.Client({ connectionString: server.adminUrl("postgres") });
await admin.connect();
const kept =
  (
    await admin.query(
      "SELECT 1 FROM pg_database WHERE datname = 'keyhook_bench' AND shobj_description(oid, 'pg_database') = $1",
      [LABEL],
    )
  ).rowCount === 1;
if (!kept) {
  await admin.query("DROP DATABASE IF EXISTS keyhook_bench WITH (FORCE)");
  await admin.query("CREATE DATABASE keyhook_bench");
}
await admin.end();
const databaseUrl = server.adminUrl("keyhook_bench");
await applyMigrations({ databaseUrl });

// Before lib/core/config/env.ts reads the configuration (once) for the in-process purge.
process.env.DATABASE_URL = databaseUrl;
process.env.LOG_LEVEL ??= "warn";
const { runPurge } = await import("../lib/operations/retention/run-purge");
const { disconnectDb } = await import("../lib/core/db/client");
const { foldRollups } = await import("../lib/operations/rollups/fold-rollups");

const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const query = async <T = Record<string, unknown>>(sql: string, params?: unknown[]) =>
  (await pool.query(sql, params)).rows as T[];
let ingest: Awaited<ReturnType<typeof startIngestServer>> | undefined;
const activity = await watchActivity(databaseUrl, "keyhook-purge");

try {
  let fillSeconds: number | "kept" = "kept";
  if (!kept) {
    const started = performance.now();
    await fillScale((sql, params) => query(sql, params), scale);
    await query(`COMMENT ON DATABASE keyhook_bench IS '${LABEL}'`);
    fillSeconds = Math.round((performance.now() - started) / 100) / 10;
  }
  if (await hasSavedDay(query)) {
    console.log("a previous run left its saved day: restoring it first");
    await restoreDay(query);
  }
  await foldRollups();
  await foldRollups();
  if (REWRITE_CLAIMS) {
    const started = performance.now();
    await query("CLUSTER processed_events USING processed_events_received_at_id_idx");
    await query("VACUUM (ANALYZE) processed_events");
    console.log(
      `processed_events rewritten with its fillfactor in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  const [fillfactor] = await query<{ options: string[] | null; mib: string }>(
    `SELECT reloptions AS options, (pg_relation_size('processed_events') / 1048576)::text AS mib FROM pg_class WHERE relname = 'processed_events'`,
  );
  console.log(`processed_events: ${fillfactor!.mib} MiB heap, options ${JSON.stringify(fillfactor!.options)}`);

  // 1. The night: one day of claims/receipts past the window, one day of payloads past theirs.
  const [oldest] = await query<{ at: Date }>("SELECT min(received_at) AS at FROM processed_events");
  const purgeNow = new Date(oldest!.at.getTime() + (RETENTION_DAYS * 24 + PURGE_HOURS) * HOUR_MS);
  const day = {
    claimsBefore: new Date(purgeNow.getTime() - RETENTION_DAYS * 24 * HOUR_MS),
    payloadsBefore: new Date(purgeNow.getTime() - (RETENTION_DAYS - 1) * 24 * HOUR_MS),
  };
  const saveStarted = performance.now();
  const saved = await saveDay(query, day);
  console.log(
    `night: purge at ${purgeNow.toISOString()} — ${saved.claims.toLocaleString("en")} claims, ${saved.receipts.toLocaleString("en")} receipts, ` +
      `${saved.payloads.toLocaleString("en")} payloads (saved in ${((performance.now() - saveStarted) / 1000).toFixed(1)} s)`,
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
  // One delivery first: a misconfigured server would otherwise show up as "fast" errors.
  const probe = stream.next();
  const probeAnswer = await fetch(url, { method: "POST", body: probe.body, headers: probe.headers });
  if (probeAnswer.status !== 200)
    throw new Error(
      `ingest server answered ${probeAnswer.status}: ${await probeAnswer.text()}\n${ingest.output.join("")}`,
    );
  await load("warm-up", 10);

  const modes = [];
  for (const mode of MODES) {
    const options = MODE_OPTIONS[mode]!;
    // The bench's retention settings for every mode: restoring the day restores the saved row.
    await query(
      `INSERT INTO settings (key, value, updated_by) VALUES ('retention', $1::jsonb, 'bench:purge')
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_by = EXCLUDED.updated_by, updated_at = now()`,
      [
        JSON.stringify({
          retentionDays: RETENTION_DAYS,
          retryHorizonHours: 72,
          payloadRetentionDays: RETENTION_DAYS - 1,
        }),
      ],
    );
    // Interleaved slices: ingest alone and ingest + purge alternate every SLICE seconds (the purge
    // is held between two batches for the alone slices), so both see whatever else this shared
    // machine is doing at that moment; each purge slice's p99 is compared with the alone slices on
    // either side of it.
    const gate = purgeGate();
    const batches: { target: string; rows: number; durationMs: number; walBytes: number; restMs: number }[] = [];
    const alones: LoadPhase[] = [await load(`${mode}: alone 0`, SLICE)];
    const durings: LoadPhase[] = [];
    const purgeStarted = performance.now();
    let purgeSeconds = 0;
    const purging = runPurge({
      trigger: "manual",
      now: purgeNow,
      ...options,
      onBatch: async (b) => {
        batches.push(b);
        await gate.pass();
      },
    }).finally(() => {
      purgeSeconds = (performance.now() - purgeStarted) / 1000 - alones.slice(1).reduce((sum, a) => sum + a.seconds, 0);
      gate.finished();
    });
    for (let slice = 1; ; slice++) {
      durings.push(await load(`${mode}: purge ${slice}`, SLICE, purging));
      const running = await gate.hold();
      alones.push(await load(`${mode}: alone ${slice}`, SLICE));
      if (!running) break;
      gate.release();
    }
    const run = await purging;
    // What a nightly run costs when there is (almost) nothing left to do.
    const second = await runPurge({ trigger: "manual", now: purgeNow, ...options });

    const byTarget = Object.fromEntries(
      ["claims", "payloads", "receipts"].map((target) => {
        const own = batches.filter((b) => b.target === target);
        const ms = own.map((b) => b.durationMs).sort((a, b) => a - b);
        const rows = own.reduce((sum, b) => sum + b.rows, 0);
        const workMs = ms.reduce((sum, m) => sum + m, 0);
        return [
          target,
          {
            batches: own.length,
            rows,
            meanRows: own.length ? Math.round(rows / own.length) : 0,
            batchMsP50: round(ms[Math.floor(ms.length / 2)] ?? 0),
            batchMsMax: round(ms.at(-1) ?? 0),
            workSeconds: round(workMs / 1000),
            restSeconds: round(own.reduce((sum, b) => sum + b.restMs, 0) / 1000),
            walMiB: round(own.reduce((sum, b) => sum + b.walBytes, 0) / 1048576),
            usPerRow: rows ? Math.round((workMs * 1000) / rows) : 0,
          },
        ];
      }),
    );
    const pairs = durings.map((during, i) => ({
      seconds: during.seconds,
      ratio: during.p99 / ((alones[i]!.p99 + alones[i + 1]!.p99) / 2),
    }));
    const weighted =
      pairs.reduce((sum, p) => sum + p.ratio * p.seconds, 0) / pairs.reduce((sum, p) => sum + p.seconds, 0);
    const sortedRatios = pairs.map((p) => p.ratio).sort((a, b) => a - b);
    const p99Ratio = Math.round(weighted * 100) / 100;
    const p99RatioMedian = Math.round(sortedRatios[Math.floor(sortedRatios.length / 2)]! * 100) / 100;
    const rate = (phases: LoadPhase[]) =>
      phases.reduce((sum, p) => sum + p.requests, 0) / phases.reduce((sum, p) => sum + p.seconds, 0);
    const throughputRatio = Math.round((rate(durings) / rate(alones)) * 100) / 100;
    modes.push({
      mode,
      options,
      purge: {
        status: run.status,
        error: run.error,
        seconds: round(purgeSeconds),
        claimsDeleted: run.claimsDeleted,
        receiptsDeleted: run.receiptsDeleted,
        payloadsCleared: run.payloadsCleared,
        batches: run.batches,
        byTarget,
        secondRun: { status: second.status, ms: second.durationMs, batches: second.batches },
      },
      slices: {
        seconds: SLICE,
        alone: alones,
        purge: durings,
        p99Ratios: pairs.map((p) => Math.round(p.ratio * 100) / 100),
      },
      p99Ratio,
      p99RatioMedian,
      throughputRatio,
    });
    console.log(
      `\n${mode}: purge ${run.status} in ${round(purgeSeconds)} s — ${run.claimsDeleted.toLocaleString("en")} claims, ` +
        `${run.receiptsDeleted.toLocaleString("en")} receipts deleted, ${run.payloadsCleared.toLocaleString("en")} payloads cleared, ${run.batches} batches; second run ${second.durationMs} ms`,
    );
    for (const [target, t] of Object.entries(byTarget)) console.log(`  ${target.padEnd(9)} ${JSON.stringify(t)}`);
    printPhases(alones.flatMap((alone, i) => (durings[i] ? [alone, durings[i]] : [alone])));
    console.log(
      `${mode}: ingest p99 in the purge slices / the alone slices either side: ${p99Ratio} (time-weighted mean of ` +
        `${pairs.length} slices; median ${p99RatioMedian}; target < 1.20); req/s purge / alone = ${throughputRatio}; ` +
        `load1m ${alones[0]!.loadAvg1m}–${alones.at(-1)!.loadAvg1m}`,
    );

    if (!RESTORE && mode === MODES.at(-1)) {
      console.log("BENCH_RESTORE=0: the day stays purged; the next bench:purge restores it first");
      break;
    }
    const restoreStarted = performance.now();
    await restoreDay(query);
    console.log(`restored the day in ${((performance.now() - restoreStarted) / 1000).toFixed(1)} s`);
  }
  if (RESTORE) await dropSaved(query);

  writeResult("purge-scale", {
    scale,
    fillSeconds,
    night: { purgeAt: purgeNow.toISOString(), ...day, ...saved, purgeHours: PURGE_HOURS },
    connections: CONNECTIONS,
    modes,
  });

  /** Fixed duration, or (seconds = null) until `until` settles. */
  async function load(name: string, seconds: number | null, until?: Promise<unknown>): Promise<LoadPhase> {
    const started = performance.now();
    const loadAvg1m = os.loadavg()[0]!;
    await activity.start();
    const result = await runIngestLoadUntil({
      url,
      connections: CONNECTIONS,
      seconds,
      until,
      nextDelivery: () => {
        const next = stream.next();
        return { body: next.body, headers: next.headers };
      },
    });
    const report = await activity.stop();
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
      activity: report,
    };
  }
} finally {
  await ingest?.kill("SIGTERM");
  await activity.close();
  await pool.end();
  await disconnectDb();
  await server.stop();
}

function printPhases(phases: LoadPhase[]) {
  console.log(
    "phase                          secs   req/s  p50 ms  p99 ms  max ms non-2xx load1m  WAL MiB/s  FPI/s ckpt",
  );
  for (const p of phases) {
    console.log(
      `${p.name.padEnd(30)} ${p.seconds.toFixed(1).padStart(5)} ${p.requestsPerSec.toFixed(0).padStart(7)} ${p.p50.toFixed(1).padStart(7)} ${p.p99.toFixed(1).padStart(7)} ${p.max.toFixed(0).padStart(7)} ${String(p.non2xx + p.errors).padStart(7)} ${p.loadAvg1m.toFixed(2).padStart(6)} ${p.activity.walMiBPerSec.toFixed(2).padStart(10)} ${String(p.activity.walFpiPerSec).padStart(6)} ${String(p.activity.checkpoints).padStart(4)}`,
    );
    console.log(
      `    ingest waits ${JSON.stringify(p.activity.ingestWaits)} active ${p.activity.ingestActive}, autovacuum ${p.activity.autovacuumShare}, checkpoint writing ${p.activity.checkpointWritingShare}`,
    );
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * Holds the purge between two batches: `hold()` resolves once the purge is waiting at its next
 * batch's end (true) or has finished (false); `release()` lets it go on.
 */
function purgeGate() {
  let done = false;
  let closed: { opened: Promise<void>; open: () => void; held: () => void; isHeld: Promise<void> } | null = null;
  return {
    async pass() {
      if (!closed) return;
      closed.held();
      await closed.opened;
    },
    async hold(): Promise<boolean> {
      if (done) return false;
      let open!: () => void;
      let held!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      const isHeld = new Promise<void>((resolve) => (held = resolve));
      closed = { opened, open, held, isHeld };
      await isHeld;
      return !done;
    },
    release() {
      const gate = closed;
      closed = null;
      gate?.open();
    },
    finished() {
      done = true;
      closed?.held();
    },
  };
}
