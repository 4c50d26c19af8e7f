// `npm run bench:ingest`: signed unique events through the production build's route handler at
// concurrency 1, 8 and 32, then 100 % duplicates; prints applied events/s and p50/p99 latency
// and keeps the figures in bench/results/ingest.json (latest) and ingest-history.ndjson.
// The load generator runs on the same 2 cores as the app and PostgreSQL, as the issue asks.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { BENCH_SECRET, startAppUnderTest } from "./support/app-under-test";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";
import { formatPhaseTable, runLoadPhase, type Delivery, type PhaseResult } from "./support/load-phase";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "1,8,32").split(",").map(Number);

assertSignerMatchesLibrary(BENCH_SECRET);
// BENCH_PORT / BENCH_PG_PORT: run beside other checkouts on one machine without a port clash.
const app = await startAppUnderTest({ port: Number(process.env.BENCH_PORT ?? 4600), pgPort: Number(process.env.BENCH_PG_PORT ?? 54349) });
try {
  const phases: PhaseResult[] = [];
  const stream = createEventStream({ secret: BENCH_SECRET, tenants: 1000, runId: Date.now().toString(36) });
  const firstEvents: { id: string; body: string }[] = [];

  // Warm-up: JIT, connection pool, Next's caches. Not reported.
  await runLoadPhase(app, { name: "warm-up", connections: 8, seconds: 3, nextDelivery: () => stream.next() });
  for (const connections of concurrencies) {
    phases.push(
      await runLoadPhase(app, {
        name: `unique c=${connections}`,
        connections,
        seconds,
        nextDelivery: () => {
          const event = stream.next();
          if (firstEvents.length < 100) firstEvents.push(event);
          return event;
        },
      }),
    );
  }
  let cursor = 0;
  const duplicate = (): Delivery => {
    const event = firstEvents[cursor++ % firstEvents.length]!;
    return { body: event.body, headers: stream.sign(event.id, event.body) };
  };
  phases.push(await runLoadPhase(app, { name: "100% duplicates c=8", connections: 8, seconds, nextDelivery: duplicate }));
  const peakRssMiB = Math.round(app.peakRssMiB());

  console.log(`\n${formatPhaseTable(phases)}\npeak RSS of the app's largest process: ${peakRssMiB} MiB`);
  const result = { at: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavg: os.loadavg() }, seconds, phases, peakRssMiB };
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/ingest.json", JSON.stringify(result, null, 2) + "\n");
  appendFileSync("bench/results/ingest-history.ndjson", JSON.stringify(result) + "\n");
  console.log("written to bench/results/ingest.json");
} finally {
  await app.stop();
}
