// `npm run worker`: the long-running background process. It runs the jobs of
// lib/operations/worker/background-jobs.ts on the PostgreSQL job queue (graphile-worker): the outbox (provider
// calls and alert notifications), the nightly retention purge at PURGE_HOUR_UTC, the rollup fold,
// the alerts, the drift check and the webhook registration. Any number of workers may run: each
// cron slot is queued once, each outbox row is claimed by one of them.
//   - The queue connects to DIRECT_DATABASE_URL when set (LISTEN needs a session), else DATABASE_URL;
//     the jobs' own queries go through the app's Prisma client (DATABASE_URL, pooler welcome).
//   - Every job starts at once, whatever the provider's state: the webhook registration
//     (PROVIDER_WEBHOOK_URL) is one job among the others, retried on its own while the provider
//     does not answer, and its failures raise the provider-unreachable alert.
// SIGINT/SIGTERM (or, under the dev launcher, its stdin closing): the jobs in flight get
// SHUTDOWN_DRAIN_MS to finish, the queue releases what it holds, then the process exits 0, also
// while the database is away. A lost connection or a failover restarts the queue, not the
// process (lib/operations/worker/supervise-job-worker.ts).
import { withDeadline } from "../lib/core/concurrency/with-deadline";
import { disconnectDb } from "../lib/core/db/client";
import { driverUrl } from "../lib/core/config/database-urls";
import { env } from "../lib/core/config/env";
import { backgroundJobs } from "../lib/operations/worker/background-jobs";
import { enqueueJob } from "../lib/core/queue/enqueue-job";
import { OUTBOX_DRAIN_KEY } from "../lib/core/queue/job-names";
import { kickStartupJobs } from "../lib/operations/worker/start-job-worker";
import { superviseJobWorker } from "../lib/operations/worker/supervise-job-worker";
import { describeError, log } from "../lib/core/log";
import { providerClientFromEnv } from "../lib/operations/provider/client";
import { runStartupChecks } from "./startup-checks";

let config: ReturnType<typeof env>;
try {
  config = env();
  if (!config.DATABASE_URL)
    throw new Error("invalid setting DATABASE_URL: is not set (npm run dev starts the worker with one)");
  for (const notice of await runStartupChecks(config)) process.stdout.write(`keyhook worker: ${notice}\n`);
} catch (error) {
  process.stderr.write(`keyhook worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

const stopped = new Promise<void>((resolve) => {
  process.on("SIGINT", resolve);
  process.on("SIGTERM", resolve);
  // Started by the dev launcher with a pipe on stdin: the kernel closes it when the launcher dies.
  if (config.KEYHOOK_EXIT_WITH_PARENT === "1") {
    process.stdin.on("close", resolve);
    process.stdin.resume();
  }
});

async function main(): Promise<void> {
  // The outbox retries durably itself (attempt log, backoff in the row), so its client never
  // retries inside one call.
  const jobs = backgroundJobs({ config, outboxClient: providerClientFromEnv({ maxRetries: 0 }) });
  const queue = await superviseJobWorker({
    connectionString: driverUrl(config.DIRECT_DATABASE_URL || config.DATABASE_URL!),
    jobs,
    concurrency: config.WORKER_CONCURRENCY,
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
  });
  // What was staged while no worker ran: drain now; start the recurring chains and the start jobs.
  await enqueueJob({ task: "outbox.drain", jobKey: OUTBOX_DRAIN_KEY });
  await kickStartupJobs(jobs);
  log.info("worker started", {
    provider: config.PROVIDER_URL,
    jobs: jobs.map((job) => job.task),
    concurrency: config.WORKER_CONCURRENCY,
  });
  await stopped;
  await queue.stop(config.SHUTDOWN_DRAIN_MS);
}

try {
  await main();
} catch (error) {
  log.error("worker could not start", { error: describeError(error) });
  process.exitCode = 1;
} finally {
  // A query stuck on a database that stopped answering would hold the pool open for ever.
  await withDeadline(disconnectDb(), 2_000, "closing the database pool").catch(() => {});
}
log.info("worker stopped");
process.exit(process.exitCode ?? 0);
