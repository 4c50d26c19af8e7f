import "server-only";
// Adds a job to the queue (graphile-worker) with plain SQL, so it works on any handle: the app's
// Prisma client through a transaction-mode pooler, or inside the caller's own transaction — the
// job then exists exactly when the change that wants it commits. graphile_worker.add_job also
// NOTIFYs at commit, which wakes a listening worker at once.
//
// A job key coalesces: adding a job whose key names a job still waiting replaces that one (one
// run for a burst of enqueues); if that job is already running, it keeps running and a new one
// is queued, so work committed during a run is never missed.
import { prisma, type DbOrTx } from "../db/client";
import type { JobName } from "./job-names";

type EnqueueJobOptions = {
  task: JobName;
  payload?: Record<string, unknown>;
  /** Coalesces with a waiting job of the same key (see above). */
  jobKey?: string;
  /** Default: now. */
  runAt?: Date;
  maxAttempts?: number;
};

export async function enqueueJob(options: EnqueueJobOptions, db: DbOrTx = prisma): Promise<void> {
  await db.$queryRaw`
    SELECT 1 FROM graphile_worker.add_job(
      ${options.task}::text,
      payload => ${JSON.stringify(options.payload ?? {})}::json,
      run_at => ${options.runAt ?? null}::timestamptz,
      max_attempts => ${options.maxAttempts ?? null}::int,
      job_key => ${options.jobKey ?? null}::text
    )`;
}
