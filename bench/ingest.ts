// `npm run bench:ingest`: signed unique events through the production build's route handler at
// concurrency 1, 8 and 32, then 100 % duplicates; prints applied events/s and p50/p99 latency
// and keeps the figures in bench/results/ingest.json (latest) and ingest-history.ndjson.
// The load generator runs on the same 2 cores as the app and PostgreSQL, as the issue asks.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import autocannon from "autocannon";
import { startAppUnderTest } from "./support/app-under-test";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";

const SECRET = "whsec_" + Buffer.from("keyhook-benchmark-secret-0123456789").toString("base64");
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "1,8,32").split(",").map(Number);

type Phase = { name: string; connections: number; seconds: number; requests: number; applied: number; appliedPerSec: number; requestsPerSec: number; p50: number; p99: number; non2xx: number; errors: number; outcomes: Record<string, number> };

assertSignerMatchesLibrary(SECRET);
const app = await startAppUnderTest({ port: 4600, pgPort: 54349, secret: SECRET });
const phases: Phase[] = [];
try {
  const runId = Date.now().toString(36);
  const stream = createEventStream({ secret: SECRET, tenants: 1000, runId });
  const firstEvents: { id: string; body: string }[] = [];

  // Warm-up: JIT, connection pool, Next's route compilation caches. Not reported.
  await load({ name: "warm-up", connections: 8, seconds: 3, nextRequest: () => stream.next() });

  for (const connections of concurrencies) {
    phases.push(
      await load({
        name: `unique c=${connections}`,
        connections,
        seconds,
        nextRequest: () => {
          const event = stream.next();
          if (firstEvents.length < 100) firstEvents.push(event);
          return event;
        },
      }),
    );
  }

  let cursor = 0;
  phases.push(
    await load({
      name: "100% duplicates c=8",
      connections: 8,
      seconds,
      nextRequest: () => {
        const event = firstEvents[cursor++ % firstEvents.length]!;
        return { body: event.body, headers: stream.sign(event.id, event.body) };
      },
    }),
  );
  const peakRssMiB = Math.round(app.peakRssMiB());

  console.log("\nphase                    conn   req/s  applied/s    p50 ms   p99 ms   non-2xx  errors  outcomes");
  for (const p of phases) {
    console.log(
      `${p.name.padEnd(24)} ${String(p.connections).padStart(4)} ${p.requestsPerSec.toFixed(0).padStart(7)} ${p.appliedPerSec.toFixed(0).padStart(10)} ${p.p50.toFixed(1).padStart(9)} ${p.p99.toFixed(1).padStart(8)} ${String(p.non2xx).padStart(9)} ${String(p.errors).padStart(7)}  ${JSON.stringify(p.outcomes)}`,
    );
  }
  console.log(`peak RSS of the app's largest process: ${peakRssMiB} MiB`);

  const result = { at: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version }, seconds, phases, peakRssMiB };
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/ingest.json", JSON.stringify(result, null, 2) + "\n");
  appendFileSync("bench/results/ingest-history.ndjson", JSON.stringify(result) + "\n");
  console.log("written to bench/results/ingest.json");
} finally {
  await app.stop();
}

async function load(options: { name: string; connections: number; seconds: number; nextRequest: () => { body: string; headers: Record<string, string> } }): Promise<Phase> {
  const before = await outcomeCounts();
  const result = await autocannon({
    url: `${app.baseUrl}/api/webhooks/keys`,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: "POST",
        setupRequest: (request) => {
          const next = options.nextRequest();
          return { ...request, body: next.body, headers: next.headers };
        },
      },
    ],
  });
  const after = await outcomeCounts();
  const outcomes = Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)]).filter(([, n]) => Number(n) > 0));
  const duplicates = result["2xx"] - Object.values(outcomes).reduce((sum: number, n) => sum + Number(n), 0);
  if (duplicates > 0) outcomes.duplicate = duplicates;
  const applied = Number(outcomes.applied ?? 0);
  return {
    name: options.name,
    connections: options.connections,
    seconds: options.seconds,
    requests: result.requests.total,
    applied,
    appliedPerSec: applied / options.seconds,
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    outcomes,
  };
}

async function outcomeCounts(): Promise<Record<string, number>> {
  const rows = await app.query<{ outcome: string; n: string }>("SELECT outcome, count(*) AS n FROM processed_events GROUP BY outcome");
  return Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)]));
}
