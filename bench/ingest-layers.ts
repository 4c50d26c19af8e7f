// `npm run bench:layers`: where the ingest's CPU per event goes, layer by layer, in ONE process
// (no HTTP, no Next): CPU time (user + system, process.cpuUsage) per applied event of
//   pg        node-postgres alone: BEGIN; the app's ingest statement; COMMIT (three round trips,
//             the statement named as the app names it on a direct connection): the floor;
//   prisma    applyKeyEvent, the app's one Prisma interactive transaction around that statement;
//   handler   handleKeyWebhook, the route handler from a signed Request to its Response
//             (signature, validation, redaction, the transaction, receipt, log line, metrics);
// and, for reference only, the statement through Prisma WITHOUT a transaction (`statement`):
// one $queryRaw, what Prisma's request pipeline costs without the interactive transaction's own
// machinery. The differences name the cost of each layer; `npm run bench:ingest` measures the
// whole server (Next and node:http on top). Layers alternate in each round so a noisy neighbour
// hits all of them; deliveries are generated and signed before a phase starts, outside the timing.
// The phases run in a child process whose stdout (the log lines) goes to /dev/null, as the
// server's does in bench:ingest.
//   BENCH_ROUNDS (3), BENCH_EVENTS (4000 per phase), BENCH_CONNECTIONS (8), BENCH_PG_PORT (54349)
// Results: bench/results/ingest-layers.json and a line in bench/results/history.ndjson.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { BENCH_PORTS, BENCH_SECRET } from "./support/app-under-test";
import { createEventStream } from "./support/event-stream";
import { freshMigratedDatabase } from "./support/fresh-database";
import { ratio, writeResult } from "./support/results";
import { TEST_AUDIT_SIGNING_KEY, TEST_ENCRYPTION_KEYS } from "../test/support/encryption-keys";

const LAYERS = ["pg", "statement", "prisma", "handler"] as const;
type Layer = (typeof LAYERS)[number];
type Phase = { layer: Layer; round: number; cpuMicrosPerEvent: number; userMicros: number; eventsPerSecond: number };

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const events = Number(process.env.BENCH_EVENTS ?? 4000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);

if (process.argv.includes("--child")) await runPhases(process.env.BENCH_DATABASE_URL!);
else await main();

async function main(): Promise<void> {
  const server = await startEmbeddedPostgres({
    dataDir: ".data/bench-postgres",
    port: BENCH_PORTS.pg,
    database: "postgres",
  });
  try {
    const databaseUrl = await freshMigratedDatabase(server, "keyhook_layers");
    const phases = await new Promise<Phase[]>((resolve, reject) => {
      const child = fork(fileURLToPath(import.meta.url), ["--child"], {
        stdio: ["ignore", "ignore", "inherit", "ipc"],
        env: {
          ...process.env,
          BENCH_DATABASE_URL: databaseUrl,
          DATABASE_URL: databaseUrl,
          WEBHOOK_SECRETS: BENCH_SECRET,
          NEXTAUTH_SECRET: "bench-only-session-secret-0123456789abcdef",
          SECRETS_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
          AUDIT_SIGNING_KEY: TEST_AUDIT_SIGNING_KEY,
          NODE_ENV: "production",
        },
      });
      const received: Phase[] = [];
      child.on("message", (phase: Phase) => {
        received.push(phase);
        console.log(
          `${phase.layer.padEnd(10)} #${phase.round}  ${String(phase.cpuMicrosPerEvent).padStart(5)} CPU µs/event` +
            `  (user ${phase.userMicros})  ${phase.eventsPerSecond}/s`,
        );
      });
      child.on("error", reject);
      child.on("exit", (code) => (code === 0 ? resolve(received) : reject(new Error(`phases exited with ${code}`))));
    });
    report(phases);
  } finally {
    await server.stop();
  }
}

function report(phases: Phase[]): void {
  const median = (layer: Layer) => {
    const values = phases.filter((p) => p.layer === layer).map((p) => p.cpuMicrosPerEvent);
    values.sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)] ?? 0;
  };
  const m = Object.fromEntries(LAYERS.map((layer) => [layer, median(layer)])) as Record<Layer, number>;
  const layers = {
    pgTransaction: m.pg,
    prismaInteractiveTransaction: m.prisma - m.pg,
    routeHandlerWork: m.handler - m.prisma,
    handlerTotal: m.handler,
    prismaStatementWithoutTransaction: m.statement,
  };
  console.log(`\nmedian CPU µs per applied event (${rounds} rounds × ${events} events, c=${connections}):`);
  console.log(`  pg: BEGIN; statement; COMMIT                 ${m.pg}`);
  console.log(`  + Prisma's interactive transaction           +${layers.prismaInteractiveTransaction}  = ${m.prisma}`);
  console.log(`  + the route handler's own work               +${layers.routeHandlerWork}  = ${m.handler}`);
  console.log(`  (reference: the statement through Prisma, no transaction: ${m.statement})`);
  console.log(
    `  ratios: prisma/pg ${ratio(m.prisma, m.pg)}, handler/pg ${ratio(m.handler, m.pg)}, ` +
      `Prisma's transaction share of the handler ${ratio(layers.prismaInteractiveTransaction, m.handler)}`,
  );
  writeResult("ingest-layers", { rounds, eventsPerPhase: events, connections, medians: m, layers, phases });
}

async function runPhases(databaseUrl: string): Promise<void> {
  const [{ applyKeyEvent, ingestStatement }, { parseEvent }, { handleKeyWebhook }, { prisma, disconnectDb }] =
    await Promise.all([
      import("../lib/core/ingest/apply-key-event"),
      import("../lib/core/ingest/event-schema"),
      import("../http/webhook/receive-key-webhook"),
      import("../lib/core/db/client"),
    ]);
  type ApplyOptions = Parameters<typeof applyKeyEvent>[0];
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections });
  let runs = 0;

  const deliveries = (count: number) => {
    const stream = createEventStream({
      secret: BENCH_SECRET,
      tenants: 1000,
      runId: `l${Date.now().toString(36)}${runs++}`,
    });
    return Array.from({ length: count }, () => stream.next());
  };
  const applyOptions = (count: number): ApplyOptions[] =>
    deliveries(count).map((delivery) => {
      const parsed = parseEvent(JSON.parse(delivery.body));
      if (!parsed.ok) throw new Error(parsed.error);
      return {
        event: parsed.parsed.event,
        payloadJson: delivery.body,
        receivedAt: new Date(),
        receipt: { webhookId: delivery.id, bodyBytes: delivery.body.length, handlerMicros: 100, source: "provider" },
      };
    });

  const prepare: Record<Layer, (count: number) => (() => Promise<void>)[]> = {
    pg: (count) =>
      applyOptions(count).map((options) => async () => {
        const statement = ingestStatement(options, 5000);
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          await client.query({ name: "keyhook_ingest", text: statement.text, values: statement.values });
          await client.query("COMMIT");
        } finally {
          client.release();
        }
      }),
    statement: (count) =>
      applyOptions(count).map((options) => async () => {
        await prisma.$queryRaw(ingestStatement(options, 5000));
      }),
    prisma: (count) =>
      applyOptions(count).map((options) => async () => {
        const result = await applyKeyEvent(options);
        if (result.outcome !== "applied") throw new Error(`expected applied, got ${result.outcome}`);
      }),
    handler: (count) =>
      deliveries(count).map((delivery) => async () => {
        const request = new Request("http://127.0.0.1/api/webhooks/keys", {
          method: "POST",
          headers: delivery.headers,
          body: delivery.body,
        });
        const response = await handleKeyWebhook(request);
        if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${await response.text()}`);
        await response.text();
      }),
  };

  const measure = async (layer: Layer, count: number) => {
    const work = prepare[layer](count);
    let next = 0;
    const started = process.cpuUsage();
    const startedAt = performance.now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < work.length) await work[next++]!();
      }),
    );
    const used = process.cpuUsage(started);
    const seconds = (performance.now() - startedAt) / 1000;
    return {
      cpuMicrosPerEvent: Math.round((used.user + used.system) / count),
      userMicros: Math.round(used.user / count),
      eventsPerSecond: Math.round(count / seconds),
    };
  };

  for (const layer of LAYERS) await measure(layer, Math.max(1000, events / 2)); // JIT warm-up, not reported
  for (let round = 1; round <= rounds; round++) {
    for (const layer of LAYERS) process.send!({ layer, round, ...(await measure(layer, events)) } satisfies Phase);
  }
  await pool.end();
  await disconnectDb();
  process.disconnect();
}
