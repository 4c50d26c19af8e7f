// `npm run bench:recover`: how long `npm run recover` takes to catch up 10,000 deliveries.
// Prints figures, asserts nothing.
//   1. the production build on a fresh database (embedded PostgreSQL) with its worker, and the
//      provider simulator delivering BENCH_RECOVER_EVENTS signed events to it, all applied;
//   2. the loss: the districts' rows removed (tenants, keys, claims, receipts, gaps, alerts), as a
//      restore to a point before those events leaves them; the hook registration stays;
//   3. `npm run recover -- --since <before the events>` as an operator runs it: every event
//      redelivered and applied again, then the drift check; its wall time, and the rate;
//   4. the same command again: every event absorbed as a duplicate (a second run).
// Writes bench/results/recover.json and a line in bench/results/history.ndjson.
//   BENCH_RECOVER_EVENTS (10000), BENCH_RECOVER_TENANTS (200), BENCH_RECOVER_PORT (4632),
//   BENCH_RECOVER_SIM_PORT (4633), BENCH_RECOVER_PG_PORT (55126)
import { spawn } from "node:child_process";
import os from "node:os";
import { startSimulator } from "../test/support/simulator";
import { BENCH_SECRET, startAppUnderTest } from "./support/app-under-test";
import { writeResult } from "./support/results";

const EVENTS = Number(process.env.BENCH_RECOVER_EVENTS ?? 10_000);
const TENANTS = Number(process.env.BENCH_RECOVER_TENANTS ?? 200);
const PORT = Number(process.env.BENCH_RECOVER_PORT ?? 4632);
const SIM_PORT = Number(process.env.BENCH_RECOVER_SIM_PORT ?? 4633);
const PG_PORT = Number(process.env.BENCH_RECOVER_PG_PORT ?? 55126);
const loadBefore = os.loadavg();

const sim = await startSimulator({
  env: {
    PROVIDER_SIM_DATA_DIR: "memory",
    PROVIDER_SIM_PORT: String(SIM_PORT),
    PROVIDER_SIM_SECRET: BENCH_SECRET,
    PROVIDER_SIM_TIME_SCALE: "1000",
  },
});
const app = await startAppUnderTest({
  port: PORT,
  pgPort: PG_PORT,
  env: {
    PROVIDER_URL: sim.url,
    KEYHOOK_WITH_WORKER: "1",
    DRIFT_CHECK_INTERVAL_HOURS: "0",
    LOG_LEVEL: "warn",
  },
});

type RecoverRun = { ms: number; exitCode: number; line: string; details: string[]; stderr: string };

function recover(since: string): Promise<RecoverRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "recover", "--", "--since", since], {
      env: { ...process.env, DATABASE_URL: app.databaseUrl, PROVIDER_URL: sim.url, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      resolve({
        ms: Math.round(performance.now() - started),
        exitCode: code ?? 2,
        line: stdout.split("\n").find((l) => l.startsWith("restored to")) ?? stdout.trim(),
        details: stdout
          .split("\n")
          .filter((l) => l.startsWith("  "))
          .map((l) => l.trim()),
        stderr: stderr.trim().split("\n").slice(-3).join("\n"),
      }),
    );
  });
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

try {
  // The worker registers the app's webhook (PROVIDER_WEBHOOK_URL, set by the launcher).
  await until(
    async () => (await app.query("SELECT 1 FROM settings WHERE key = 'provider.hook_id'")).length === 1,
    "the worker to register the webhook",
  );
  const since = (await app.query<{ since: string }>("SELECT clock_timestamp()::text AS since"))[0]!.since;
  const loadStarted = performance.now();
  for (let emitted = 0; emitted < EVENTS; emitted += 1_000)
    await sim.control("POST", "/_sim/emit", {
      count: Math.min(1_000, EVENTS - emitted),
      tenantCount: TENANTS,
      tenantPrefix: "district-recover-",
    });
  await until(async () => {
    const stats = await sim.stats();
    return stats.messages.succeeded === EVENTS && stats.queued === 0 && stats.inFlight === 0;
  }, "the first delivery of every event");
  const firstDeliveryMs = Math.round(performance.now() - loadStarted);
  console.log(`${EVENTS} events delivered and applied in ${(firstDeliveryMs / 1000).toFixed(1)} s`);

  // What a restore to `since` leaves: none of these districts' rows.
  await app.query(
    "TRUNCATE tenants, api_keys, processed_events, receipts, sequence_gaps, alerts, alert_notifications, drift_runs CASCADE",
  );

  const first = await recover(since);
  console.log(`recover (all lost): ${(first.ms / 1000).toFixed(1)} s, exit ${first.exitCode}: ${first.line}`);
  for (const line of first.details) console.log(`  ${line}`);
  if (first.exitCode !== 0) console.log(first.stderr);
  const claims = (await app.query<{ claims: string }>("SELECT count(*)::text AS claims FROM processed_events"))[0]!
    .claims;
  const second = await recover(since);
  console.log(`recover again (all kept): ${(second.ms / 1000).toFixed(1)} s, exit ${second.exitCode}: ${second.line}`);
  for (const line of second.details) console.log(`  ${line}`);

  writeResult("recover", {
    events: EVENTS,
    tenants: TENANTS,
    loadAverageBefore: loadBefore.map((l) => Math.round(l * 100) / 100),
    firstDeliveryMs,
    allLost: { ...first, claimsAfter: Number(claims), eventsPerSecond: Math.round(EVENTS / (first.ms / 1000)) },
    allKept: { ...second, eventsPerSecond: Math.round(EVENTS / (second.ms / 1000)) },
  });
} finally {
  await app.stop();
  await sim.dispose();
}
