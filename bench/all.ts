// `npm run bench`: the product's figures in one table, kept in bench/results/bench.json (latest)
// and a line in bench/results/history.ndjson.
//   L0  pgbench running exactly the ingest's SQL (the database's own limit)
//   L2  signed unique events through the production build at concurrency 1, 8, 32, 128
//   L2/L0 at the same concurrency, from the same run
//   duplicate storm: 10,000 deliveries of 100 event ids (applied must be 100)
//   peak memory of the app process during L2
//   dashboard: server render time (p50/p95) of the ledger and overview pages at 1,000,000 rows
import os from "node:os";
import { BENCH_PORTS, BENCH_SECRET, startAppUnderTest } from "./support/app-under-test";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";
import { formatPhaseTable, runLoadPhase, type PhaseResult } from "./support/load-phase";
import { fillLedger, signInCookie, timePage, type RenderTiming } from "./support/dashboard-render";
import { findPgbench, runPgbench, type PgbenchResult } from "./support/pgbench-l0";
import { writeResult } from "./support/results";
import { formatIsolation, runIsolationPhase } from "./support/isolation-phase";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "1,8,32,128").split(",").map(Number);

assertSignerMatchesLibrary(BENCH_SECRET);
const pgbench = findPgbench();
const ledgerRows = Number(process.env.BENCH_LEDGER_ROWS ?? 1_000_000);
// The demo users are seeded so the dashboard can be signed into.
const app = await startAppUnderTest({ port: BENCH_PORTS.app, pgPort: BENCH_PORTS.pg, env: { KEYHOOK_SEED_DEMO: "1" } });
let failed = false;
try {
  const l0: PgbenchResult[] = [];
  if (pgbench) {
    for (const connections of concurrencies)
      l0.push(runPgbench({ pgbench, databaseUrl: app.databaseUrl, connections, seconds }));
  } else {
    console.log("bench: pgbench not found (apt-get install postgresql-contrib): L0 skipped");
  }

  const stream = createEventStream({ secret: BENCH_SECRET, tenants: 1000, runId: Date.now().toString(36) });
  await runLoadPhase(app, { name: "warm-up", connections: 8, seconds: 3, nextDelivery: () => stream.next() });
  const l2: PhaseResult[] = [];
  for (const connections of concurrencies) {
    l2.push(
      await runLoadPhase(app, {
        name: `L2 unique c=${connections}`,
        connections,
        seconds,
        nextDelivery: () => stream.next(),
      }),
    );
  }
  const peakRssMiB = Math.round(app.peakRssMiB());

  const stormEvents = Array.from({ length: 100 }, () => stream.next());
  let cursor = 0;
  const storm = await runLoadPhase(app, {
    name: "duplicate storm 10k/100 ids",
    connections: 32,
    amount: 10_000,
    nextDelivery: () => {
      const event = stormEvents[cursor++ % stormEvents.length]!;
      return { body: event.body, headers: stream.sign(event.id, event.body) };
    },
  });
  // Ledger rows the storm created: each of the 100 event ids must be claimed exactly once.
  const stormApplied = Object.entries(storm.outcomes)
    .filter(([outcome]) => outcome !== "duplicate")
    .reduce((sum, [, n]) => sum + n, 0);

  await fillLedger(app, ledgerRows);
  const cookie = await signInCookie(app.baseUrl, "support@keyhook.test");
  const renders: RenderTiming[] = [];
  for (const page of ["/ledger", "/overview", "/ledger?outcome=quarantined"])
    renders.push(await timePage(app.baseUrl, page, cookie, 30));
  // Last: its sign-in flood closes this client address's sign-in door for up to a minute.
  const isolation = await runIsolationPhase(app, { stream, seconds: Math.max(seconds, 10), staffCookie: cookie });

  console.log("\nL0 (pgbench, the ingest's SQL in BEGIN/COMMIT)");
  console.log("conn      tps   avg ms  failed");
  for (const r of l0)
    console.log(
      `${String(r.connections).padStart(4)} ${r.tps.toFixed(0).padStart(8)} ${r.latencyAvgMs.toFixed(2).padStart(8)} ${String(r.failed).padStart(7)}`,
    );
  console.log(`\n${formatPhaseTable([...l2, storm])}`);
  console.log("\nL2 / L0 (processed events/s over pgbench tps at the same concurrency)");
  const ratios = l2.map((phase) => {
    const base = l0.find((r) => r.connections === phase.connections);
    const processed = phase.requestsPerSec;
    return { connections: phase.connections, ratio: base ? processed / base.tps : null };
  });
  for (const r of ratios) console.log(`c=${r.connections}: ${r.ratio === null ? "n/a" : r.ratio.toFixed(2)}`);
  console.log(
    `\nduplicate storm: ${stormApplied} of 100 event ids were claimed and applied (must be 100), ${storm.non2xx} non-2xx`,
  );
  console.log(`peak RSS of the app during L2: ${peakRssMiB} MiB`);
  console.log(
    `\ndashboard render at ${ledgerRows.toLocaleString("en")} ledger rows (full streamed body, signed in as support)`,
  );
  for (const r of renders)
    console.log(
      `${r.page.padEnd(30)} p50 ${r.p50.toFixed(0).padStart(5)} ms   p95 ${r.p95.toFixed(0).padStart(5)} ms   max ${r.max.toFixed(0).padStart(5)} ms`,
    );
  console.log(`\n${formatIsolation(isolation)}`);
  failed = stormApplied !== 100 || storm.non2xx > 0 || isolation.loaded.non2xx > 0;

  const at = new Date().toISOString();
  const result = {
    at,
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavg: os.loadavg() },
    seconds,
    l0,
    l2,
    ratios,
    storm,
    stormApplied,
    peakRssMiB,
    ledgerRows,
    renders,
    isolation,
  };
  writeResult("bench", result);
} finally {
  await app.stop();
}
if (failed) process.exit(1);
