// `npm run worker`: the long-running background process on DATABASE_URL.
//   - sends the outbox (lib/outbox/process-outbox.ts), looping while there is work and polling
//     every OUTBOX_POLL_INTERVAL_MS when there is none;
//   - when PROVIDER_WEBHOOK_URL is set, makes sure our webhook is registered at the provider first
//     (idempotent; retried until the provider answers, e.g. while the simulator is still starting).
// SIGINT/SIGTERM: the batch in flight finishes, then the process exits 0.
// More periodic jobs (the nightly retention purge) belong in `periodicJobs` below.
import { disconnectDb } from "../lib/db";
import { env } from "../lib/env";
import { describeError, log } from "../lib/log";
import { processOutbox } from "../lib/outbox/process-outbox";
import { providerClientFromEnv } from "../lib/provider/client";
import { ensureWebhookRegistered } from "../lib/provider/webhook-registration";
import { sweepAlerts } from "../lib/alerts/sweep-alerts";
import { runDriftJob } from "../lib/drift/drift-job";
import { startNightlyPurge } from "../lib/retention/nightly-purge";
import { foldRollups } from "../lib/rollups/fold-rollups";

let config: ReturnType<typeof env>;
try {
  config = env();
  if (!config.DATABASE_URL)
    throw new Error("invalid setting DATABASE_URL: is not set (npm run dev starts the worker with one)");
} catch (error) {
  process.stderr.write(`keyhook worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

let stopping = false;
let wake: (() => void) | null = null;
const stop = () => {
  stopping = true;
  wake?.();
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
// Started by the dev launcher with a pipe on stdin: the kernel closes it when the launcher dies.
if (config.KEYHOOK_EXIT_WITH_PARENT === "1") {
  process.stdin.on("close", stop);
  process.stdin.resume();
}

/** Waits, but wakes at once on shutdown. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
}

// The outbox retries durably itself, so its client never retries inside one call.
const outboxClient = providerClientFromEnv({ maxRetries: 0 });

async function registerWebhook(url: string): Promise<void> {
  for (let attempt = 1; !stopping; attempt++) {
    try {
      const { hookId, created } = await ensureWebhookRegistered({ url, client: providerClientFromEnv() });
      log.info(created ? "webhook registered at the provider" : "webhook already registered", { hook_id: hookId, url });
      return;
    } catch (error) {
      log.warn("webhook registration failed; retrying", { attempt, url, error: describeError(error) });
      await pause(Math.min(30_000, 500 * 2 ** Math.min(attempt, 6)));
    }
  }
}

let driftInFlight: Promise<void> | null = null;

/** Jobs that run on their own schedule next to the outbox loop. Each must swallow its own errors. */
const periodicJobs: { name: string; everyMs: number; run: () => Promise<void> }[] = [
  // The dashboard's hourly counts: the pages stay exact without it, but slower as the unfolded tail grows.
  { name: "rollups", everyMs: config.ROLLUP_INTERVAL_MS, run: () => foldRollups().then(() => undefined) },
  // (The nightly retention purge keeps its own wall-clock timer: startNightlyPurge in main.)
  // INTEGRATOR (issue 13, part 4): the two jobs below move onto the job queue's schedule when it
  // lands; they are plain functions of (options, db) so the queue's task only calls them.
  // The alert sweep: every condition-based alert kind (quarantine, superseded keys, sequence gaps
  // past the retry horizon — it calls raiseGapAlerts —, failed outbox rows and purges, the
  // provider unreachable, the delivery failure rate), raised and auto-resolved.
  {
    name: "alert-sweep",
    everyMs: config.ALERT_SWEEP_INTERVAL_MS,
    run: async () => {
      const result = await sweepAlerts();
      const changed = Object.entries(result).filter(([, r]) => r.raised > 0 || r.resolved > 0);
      if (changed.length > 0) log.info("alert sweep", Object.fromEntries(changed));
    },
  },
  // The drift check: a run a platform admin requested (or an interrupted one) at once, else one
  // every DRIFT_CHECK_INTERVAL_HOURS. Checked every 30 s so the button's run starts promptly; it
  // runs beside the loop (a large provider takes minutes), so outbox sends do not wait for it.
  {
    name: "drift-check",
    everyMs: 30_000,
    run: async () => {
      if (driftInFlight) return;
      driftInFlight = runDriftJob({ provider: providerClientFromEnv() })
        .then((result) => {
          if (result && result.status !== "busy") log.info("drift check", { ...result });
        })
        .catch((error) => log.error("drift check failed", { error: describeError(error) }))
        .finally(() => (driftInFlight = null));
    },
  },
];

async function runPeriodicJobs(lastRun: Map<string, number>): Promise<void> {
  for (const job of periodicJobs) {
    const last = lastRun.get(job.name) ?? 0;
    if (Date.now() - last < job.everyMs) continue;
    lastRun.set(job.name, Date.now());
    try {
      await job.run();
    } catch (error) {
      log.error("periodic job failed", { job: job.name, error: describeError(error) });
    }
  }
}

async function main(): Promise<void> {
  log.info("worker started", { provider: config.PROVIDER_URL, poll_ms: config.OUTBOX_POLL_INTERVAL_MS });
  if (config.PROVIDER_WEBHOOK_URL) await registerWebhook(config.PROVIDER_WEBHOOK_URL);
  const lastRun = new Map<string, number>();
  // The retention purge runs at PURGE_HOUR_UTC on its own timer (every replica may: one takes the lock).
  const stopNightlyPurge = startNightlyPurge();
  while (!stopping) {
    let busy = false;
    try {
      const result = await processOutbox({ client: outboxClient });
      busy = result.claimed > 0;
    } catch (error) {
      // The database is down or restarting: keep the process, try again after a pause.
      log.error("outbox pass failed", { error: describeError(error) });
    }
    await runPeriodicJobs(lastRun);
    if (!busy && !stopping) await pause(config.OUTBOX_POLL_INTERVAL_MS);
  }
  stopNightlyPurge();
  await driftInFlight;
}

try {
  await main();
} finally {
  await disconnectDb();
}
log.info("worker stopped");
process.exit(0);
