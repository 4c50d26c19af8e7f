// `npm run bench:read-replica`: would the dashboard's reads be better served by a standby?
// On the documented topology (Patroni, three PostgreSQL 15 nodes, synchronous; HAProxy's primary
// port for writes and its replica port for reads), signed deliveries are ingested at a fixed
// concurrency against the primary while the dashboard's page queries (test/support/page-queries.ts,
// the pages' own lib/ services) run in a loop, alternately on the primary and on a standby:
// after one warm-up arm of each, arms A (primary), B (standby), A, B, … each READ_REPLICA_ARM_MS long. Printed per arm: events/s
// ingested, the page-set's p50 / p95 per query, and the standby's replay lag. Figures are ratios
// within the run (B / A), never absolute.
// Knobs: READ_REPLICA_CLAIMS (100,000), READ_REPLICA_ARM_MS (15,000), READ_REPLICA_ROUNDS (4),
// READ_REPLICA_CONCURRENCY (8), BENCH_FAILOVER_BASE_PORT (4900: ports +0 … +39).
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { DEV_WEBHOOK_SECRET } from "../lib/core/config/env";
import { PrismaClient } from "../lib/generated/prisma/client";
import { applyMigrations } from "../tooling/migrations/wasm-engine";
import { fillScale } from "../test/support/fill-scale";
import { pageQueries } from "../test/support/page-queries";
import { startPatroniCluster, waitFor } from "../test/support/patroni-cluster";
import { createEventStream } from "./support/event-stream";
import { ratio, writeResult } from "./support/results";

const claims = Number(process.env.READ_REPLICA_CLAIMS ?? 100_000);
const armMs = Number(process.env.READ_REPLICA_ARM_MS ?? 15_000);
const rounds = Number(process.env.READ_REPLICA_ROUNDS ?? 4);
const concurrency = Number(process.env.READ_REPLICA_CONCURRENCY ?? 8);
const basePort = Number(process.env.BENCH_FAILOVER_BASE_PORT ?? 4900);

const cluster = await startPatroniCluster({ basePort, nodes: 3, synchronous: true, log: console.log });
try {
  const admin = new pg.Client({ connectionString: cluster.primaryUrl("postgres") });
  await admin.connect();
  await admin.query("CREATE DATABASE keyhook");
  await admin.end();
  const primaryUrl = cluster.primaryUrl("keyhook");
  await applyMigrations({ databaseUrl: primaryUrl });
  const filler = new pg.Client({ connectionString: primaryUrl });
  await filler.connect();
  await fillScale((sql, params) => filler.query(sql, params), { claims, receipts: claims, districts: 1_000 });
  const [{ id: ledgerId }] = (await filler.query<{ id: string }>("SELECT id::text FROM processed_events LIMIT 1"))
    .rows as [{ id: string }];
  await filler.end();

  // The ingest runs in this process on lib/core/db/client (DATABASE_URL = the primary), as in the app.
  process.env.DATABASE_URL = primaryUrl;
  process.env.LOG_LEVEL = "warn";
  const { handleKeyWebhook } = await import("../http/webhook/receive-key-webhook");
  const client = (url: string) => new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 4 }) });
  const readers = { primary: client(primaryUrl), standby: client(cluster.replicaUrl("keyhook")) };
  const lagClient = new pg.Client({ connectionString: cluster.replicaUrl("keyhook") });
  await lagClient.connect();
  await waitFor(
    async () => (await lagClient.query("SELECT 1 FROM processed_events LIMIT 1")).rowCount === 1,
    60_000,
    "the standby never showed the fill",
  );

  const queries = pageQueries({ claims, districts: 1_000, ledgerId });
  const stream = createEventStream({ secret: DEV_WEBHOOK_SECRET, tenants: 200, runId: `rr${Date.now() % 100_000}` });
  type Arm = { arm: "primary" | "standby"; eventsPerSecond: number; queryMs: number[]; lagMs: number[] };
  const arms: Arm[] = [];
  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  };

  // One arm of each first, not counted: cold caches and the first folds would weigh on arm A only.
  for (let round = -2; round < rounds * 2; round++) {
    const arm: Arm["arm"] = (round + 2) % 2 === 0 ? "primary" : "standby";
    const reader = readers[arm];
    const deadline = Date.now() + armMs;
    let ingested = 0;
    const queryMs: number[] = [];
    const lagMs: number[] = [];
    const writers = Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        const { body, headers } = stream.next();
        const response = await handleKeyWebhook(
          new Request("http://bench/api/webhooks/keys", { method: "POST", headers, body }),
        );
        if (response.status === 200) ingested++;
      }
    });
    const dashboard = (async () => {
      while (Date.now() < deadline) {
        for (const query of queries) {
          const started = performance.now();
          await query.run(reader);
          queryMs.push(performance.now() - started);
        }
        const { rows } = await lagClient.query<{ lag: number | null }>(
          "SELECT extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000 AS lag",
        );
        if (rows[0]?.lag != null) lagMs.push(Number(rows[0].lag));
      }
    })();
    await Promise.all([...writers, dashboard]);
    if (round >= 0) arms.push({ arm, eventsPerSecond: (ingested * 1000) / armMs, queryMs, lagMs });
    console.log(
      `${round < 0 ? "warm-up " : ""}${arm.padEnd(8)} ${((ingested * 1000) / armMs).toFixed(0).padStart(5)} events/s; page queries p50 ${percentile(queryMs, 0.5).toFixed(1)} ms, p95 ${percentile(queryMs, 0.95).toFixed(1)} ms (${queryMs.length}); standby replay lag p95 ${percentile(lagMs, 0.95).toFixed(0)} ms`,
    );
  }

  const summarize = (name: Arm["arm"]) => {
    const these = arms.filter((a) => a.arm === name);
    const all = these.flatMap((a) => a.queryMs);
    return {
      eventsPerSecond: Math.round(these.reduce((sum, a) => sum + a.eventsPerSecond, 0) / these.length),
      queryP50Ms: Math.round(percentile(all, 0.5) * 10) / 10,
      queryP95Ms: Math.round(percentile(all, 0.95) * 10) / 10,
      replayLagP95Ms: Math.round(
        percentile(
          these.flatMap((a) => a.lagMs),
          0.95,
        ),
      ),
    };
  };
  const primary = summarize("primary");
  const standby = summarize("standby");
  const ratios = {
    ingest: ratio(standby.eventsPerSecond, primary.eventsPerSecond),
    queryP50: ratio(standby.queryP50Ms, primary.queryP50Ms),
    queryP95: ratio(standby.queryP95Ms, primary.queryP95Ms),
  };
  console.log(
    `\nstandby / primary: ingest ${ratios.ingest}x, page queries p50 ${ratios.queryP50}x, p95 ${ratios.queryP95}x`,
  );
  writeResult("read-replica", { claims, armMs, rounds, concurrency, primary, standby, ratios });
  await Promise.all([readers.primary.$disconnect(), readers.standby.$disconnect(), lagClient.end()]);
} finally {
  await cluster.stop();
}
process.exit(0);
