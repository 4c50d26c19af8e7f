// `npm run bench:queue`: how long an outbox row waits between its commit and its send, on the
// job queue (the enqueue's NOTIFY wakes the worker) next to the loop it replaced (processOutbox
// polled every OUTBOX_POLL_INTERVAL_MS = 1,000 ms), alternating in the same run on the same
// database; and what the add_job call adds to an enqueue. Prints figures, asserts nothing.
// Each message is a notify.slack row to a local HTTP receiver: the time from COMMIT to the
// receiver's request. BENCH_MESSAGES (per round, default 40), BENCH_ROUNDS (3), BENCH_PG_PORT
// (54522), BENCH_RECEIVER_PORT (0: any free port).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { ratio, writeResult } from "./support/results";
import { freshMigratedDatabase } from "./support/fresh-database";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 40);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PG_PORT = Number(process.env.BENCH_PG_PORT ?? 54522);
const RECEIVER_PORT = Number(process.env.BENCH_RECEIVER_PORT ?? 0);
const POLL_MS = 1_000;
const DATABASE = "keyhook_queue_bench";

const server = await startEmbeddedPostgres({ dataDir: ".data/h-queue-bench", port: PG_PORT, database: "postgres" });
const databaseUrl = await freshMigratedDatabase(server, DATABASE);
process.env.DATABASE_URL = databaseUrl;
process.env.LOG_LEVEL ??= "warn";

const { prisma, disconnectDb } = await import("../lib/core/db/client");
const { enqueueOutbox } = await import("../lib/core/outbox/enqueue-outbox");
const { processOutbox } = await import("../lib/operations/outbox/process-outbox");
const { drainOutbox } = await import("../lib/operations/outbox/drain-outbox");
const { startJobWorker } = await import("../lib/operations/worker/start-job-worker");
const { createProviderClient } = await import("../lib/operations/provider/client");

// The receiver: resolves the waiter of each message id when its request arrives.
const arrivals = new Map<string, (at: number) => void>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const at = performance.now();
    const text = (JSON.parse(Buffer.concat(chunks).toString()) as { text: string }).text;
    arrivals.get(text)?.(at);
    res.writeHead(200).end("ok");
  });
});
await new Promise<void>((resolve) => receiver.listen(RECEIVER_PORT, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
await prisma.alertChannel.create({ data: { id: "ch_bench", kind: "slack", name: "bench", target: receiverUrl } });
const client = createProviderClient({ baseUrl: "http://127.0.0.1:9", apiKey: "pk_bench_unused", maxRetries: 0 });

let sequence = 0;
/** Commits one notify row; resolves with ms from its COMMIT to the receiver's request. */
async function oneMessage(withJob: boolean): Promise<{ waitMs: number; enqueueMs: number }> {
  const text = `bench message ${++sequence}`;
  const arrived = new Promise<number>((resolve) => arrivals.set(text, resolve));
  const payload = {
    channelId: "ch_bench",
    alertId: String(sequence),
    event: "alert.opened" as const,
    title: text,
    text,
    alert: {
      id: String(sequence),
      kind: "bench",
      subject: text,
      tenantId: null,
      state: "open",
      count: 1,
      firstSeenAt: "",
      lastSeenAt: "",
    },
  };
  const started = performance.now();
  if (withJob) {
    await enqueueOutbox({ kind: "notify.slack", tenantId: null, idempotencyKey: `bench:${sequence}`, payload });
  } else {
    // The old enqueue: the row alone (what the polling loop finds).
    await prisma.$executeRaw`INSERT INTO outbox (tenant_id, kind, payload, idempotency_key)
      VALUES (NULL, 'notify.slack', ${JSON.stringify(payload)}::jsonb, ${`bench:${sequence}`})`;
  }
  const committed = performance.now();
  const at = await arrived;
  arrivals.delete(text);
  return { waitMs: at - committed, enqueueMs: committed - started };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
};

async function queueRound() {
  const runner = await startJobWorker({
    connectionString: databaseUrl,
    jobs: [{ task: "outbox.drain", run: () => drainOutbox({ client }).then(() => undefined) }],
    concurrency: 2,
    pollIntervalMs: POLL_MS,
  });
  const samples = [];
  for (let i = 0; i < MESSAGES; i++) samples.push(await oneMessage(true));
  await runner.stop();
  return samples;
}

async function pollingRound() {
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const result = await processOutbox({ client });
      if (result.claimed === 0 && !stop) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  const samples = [];
  // Messages arrive at random moments relative to the poll, as real ones do.
  for (let i = 0; i < MESSAGES; i++) {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * POLL_MS));
    samples.push(await oneMessage(false));
  }
  stop = true;
  await loop;
  return samples;
}

const queue: { waitMs: number; enqueueMs: number }[] = [];
const polling: { waitMs: number; enqueueMs: number }[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  queue.push(...(await queueRound()));
  polling.push(...(await pollingRound()));
  console.log(`round ${round}/${ROUNDS} done`);
}

const summary = (samples: { waitMs: number; enqueueMs: number }[]) => ({
  messages: samples.length,
  commit_to_send_p50_ms: percentile(
    samples.map((s) => s.waitMs),
    50,
  ),
  commit_to_send_p95_ms: percentile(
    samples.map((s) => s.waitMs),
    95,
  ),
  enqueue_p50_ms: percentile(
    samples.map((s) => s.enqueueMs),
    50,
  ),
});
const result = {
  queue_notify: summary(queue),
  polling_loop_1000ms: summary(polling),
  ratio_commit_to_send_p50: ratio(summary(queue).commit_to_send_p50_ms, summary(polling).commit_to_send_p50_ms),
  ratio_enqueue_p50: ratio(summary(queue).enqueue_p50_ms, summary(polling).enqueue_p50_ms),
};
console.table({ queue: result.queue_notify, polling: result.polling_loop_1000ms });
console.log(
  `commit→send p50, queue / polling: ${result.ratio_commit_to_send_p50}; enqueue p50, with add_job / without: ${result.ratio_enqueue_p50}`,
);
writeResult("queue-wake", result);

receiver.close();
await disconnectDb();
await server.stop();
process.exit(0);
