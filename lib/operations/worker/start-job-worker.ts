import "server-only";
// Runs the background jobs (background-jobs.ts) on graphile-worker: a PostgreSQL job queue that
// fetches with SKIP LOCKED, wakes on LISTEN/NOTIFY (add_job notifies at commit), retries a failed
// job with exponential backoff, and queues each cron slot once across all workers (its
// known_crontabs table). It needs a real session — LISTEN, and the advisory lock of its own
// migration check — so it connects to PostgreSQL itself (DIRECT_DATABASE_URL when DATABASE_URL
// goes through a transaction-mode pooler); the jobs' own queries use the app's Prisma client.
// The queue's schema is installed by our migration step (tooling/migrations), never lazily here.
import { EventEmitter } from "node:events";
import {
  Logger,
  parseCronItems,
  run,
  type CronItem,
  type Runner,
  type TaskList,
  type WorkerEvents,
} from "graphile-worker";
import { describeError, log } from "../../core/log";
import { enqueueJob } from "../../core/queue/enqueue-job";
import type { BackgroundJob } from "./background-jobs";

export type JobWorkerOptions = {
  /** PostgreSQL itself, never a pooler. */
  connectionString: string;
  jobs: BackgroundJob[];
  concurrency: number;
  /** How often it looks for jobs that came due (a future run_at) without a NOTIFY. */
  pollIntervalMs: number;
  /** graphile-worker's events (tests wait on cron:scheduled, job:complete …). */
  events?: WorkerEvents;
};

export async function startJobWorker(options: JobWorkerOptions): Promise<Runner> {
  const taskList: TaskList = {};
  for (const job of options.jobs) {
    taskList[job.task] = async (payload, helpers) => {
      const body = (payload ?? {}) as Record<string, unknown> & { _cron?: { ts?: string }; scheduledFor?: unknown };
      const slot = body._cron?.ts ?? (typeof body.scheduledFor === "string" ? body.scheduledFor : null);
      const scheduledFor = slot ? new Date(slot) : null;
      await job.run({ scheduledFor, payload: body });
      if (job.everyMs) {
        // The next link of the chain; the key coalesces it with the cron's safety-net job.
        await helpers.addJob(job.task, {}, { jobKey: job.task, runAt: new Date(Date.now() + job.everyMs) });
      }
    };
  }
  const cronItems: CronItem[] = options.jobs
    .filter((job) => job.cron)
    .map((job) => ({
      task: job.task,
      match: job.cron!,
      identifier: job.task,
      options: {
        backfillPeriod: job.backfillMs ?? 0,
        maxAttempts: job.maxAttempts,
        // A backlog of one schedule is one job, not one per missed slot.
        jobKey: job.task,
      },
    }));
  const runner = await run({
    connectionString: options.connectionString,
    concurrency: options.concurrency,
    pollInterval: options.pollIntervalMs,
    noHandleSignals: true,
    taskList,
    parsedCronItems: parseCronItems(cronItems),
    logger: queueLogger,
    events: options.events ?? new EventEmitter(),
    // Unbatched, a completion that fails (its connection cut by a failover) is an unhandled
    // rejection that kills the process; batched, it stops the pool, which the supervisor
    // restarts (supervise-job-worker.ts).
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  });
  runner.events.on("job:error", ({ job, error }) => {
    log.warn("job failed; the queue retries it with backoff", {
      task: job.task_identifier,
      attempt: job.attempts,
      max_attempts: job.max_attempts,
      error: describeError(error),
    });
  });
  return runner;
}

/**
 * What a worker queues as it starts: each `everyMs` chain and each `atStart` job, coalesced by
 * key with its cron's (several workers starting queue one of each).
 */
export async function kickStartupJobs(jobs: BackgroundJob[], now = new Date()): Promise<void> {
  for (const job of jobs)
    if (job.everyMs || job.atStart)
      await enqueueJob({ task: job.task, jobKey: job.task, payload: job.atStart?.(now), maxAttempts: job.maxAttempts });
}

// graphile-worker's own log lines, in our JSON format. Its "info" is a line per completed job
// (several every few seconds with the chains): debug here; our own jobs log what they did.
// Its metadata carries whole pg clients and job rows (payloads): only plain values and error
// descriptions reach our log.
const queueLogger = new Logger((scope) => (level, message, meta) => {
  const fields = { queue: true, ...(scope.taskIdentifier ? { task: scope.taskIdentifier } : {}) };
  if (level === "error") log.error(message, { ...fields, ...plainFields(meta) });
  else if (level === "warning") log.warn(message, { ...fields, ...plainFields(meta) });
  else log.debug(message, fields);
});

function plainFields(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(meta ?? {})) {
    if (value instanceof Error) fields[name] = describeError(value);
    else if (value === null || ["string", "number", "boolean"].includes(typeof value)) fields[name] = value;
  }
  return fields;
}
