import "server-only";
// The drift check as a background job: run whatever a platform admin requested (or a run that was
// interrupted), else start the scheduled one when DRIFT_CHECK_INTERVAL_HOURS has passed since the
// last. Safe to call from several workers at once: a run is claimed with a lease
// (drift-runs.ts), and a scheduled run is only created when none is waiting or running.
// The queue runs it every minute (task drift.check, lib/operations/worker/background-jobs.ts), and at once when
// a platform admin asks (request-drift-check.ts queues it).
import { prisma, type Db } from "../../core/db/client";
import { env } from "../../core/config/env";
import { nextClaimableRun } from "./drift-runs";
import { runDriftCheck, type DriftCheckResult, type DriftProvider } from "./run-drift-check";

export async function runDriftJob(
  options: { provider: DriftProvider; now?: () => Date; intervalHours?: number; pageSize?: number },
  db: Db = prisma,
): Promise<DriftCheckResult | null> {
  const now = options.now ?? (() => new Date());
  const waiting = await nextClaimableRun(now(), db);
  if (waiting)
    return runDriftCheck({ provider: options.provider, runId: waiting.id, now, pageSize: options.pageSize }, db);

  const intervalHours = options.intervalHours ?? env().DRIFT_CHECK_INTERVAL_HOURS;
  if (intervalHours === 0) return null;
  const last = await db.driftRun.findFirst({ orderBy: [{ requestedAt: "desc" }, { id: "desc" }] });
  if (last && (last.status === "running" || now().getTime() - last.requestedAt.getTime() < intervalHours * 3_600_000))
    return null;
  return runDriftCheck(
    { provider: options.provider, trigger: "schedule", requestedBy: "schedule", now, pageSize: options.pageSize },
    db,
  );
}
