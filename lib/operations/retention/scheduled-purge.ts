import "server-only";
// The self-hosted nightly purge: the job queue's cron (lib/operations/worker/background-jobs.ts) queues ONE
// retention.purge job per day at PURGE_HOUR_UTC whatever the number of workers (graphile-worker
// records each schedule's last run in known_crontabs and inserts a timestamp's job only once).
// Second line, should a slot's job run twice anyway (a replayed job, a restored queue): a slot
// that has a `ran` row is not purged again. Two runs at the same moment meet the purge lease
// (one records `skipped_locked`). A purge that failed throws, so the queue retries it with backoff.
import { prisma, type Db } from "../../core/db/client";
import { log } from "../../core/log";
import { toPurgeRunSummary, type PurgeRunSummary } from "./purge-runs";
import { runPurge } from "./run-purge";

type ScheduledPurgeResult =
  { outcome: "purged"; run: PurgeRunSummary } | { outcome: "already_ran"; run: PurgeRunSummary };

export class ScheduledPurgeFailed extends Error {
  constructor(readonly run: PurgeRunSummary) {
    super(`the scheduled purge failed: ${run.error ?? "no reason recorded"}`);
    this.name = "ScheduledPurgeFailed";
  }
}

export async function runScheduledPurge(
  options: { scheduledFor: Date; now?: Date },
  db: Db = prisma,
): Promise<ScheduledPurgeResult> {
  const done = await db.purgeRun.findFirst({
    where: { scheduledFor: options.scheduledFor, status: "ran" },
    orderBy: { id: "asc" },
  });
  if (done) {
    log.info("scheduled purge already ran for this slot", { scheduled_for: options.scheduledFor.toISOString() });
    return { outcome: "already_ran", run: toPurgeRunSummary(done) };
  }
  const run = await runPurge({ trigger: "schedule", now: options.now, scheduledFor: options.scheduledFor }, db);
  if (run.status === "failed") throw new ScheduledPurgeFailed(run);
  return { outcome: "purged", run };
}
