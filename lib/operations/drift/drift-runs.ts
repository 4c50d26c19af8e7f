import "server-only";
// The record of drift checks (drift_runs) and who holds one: a run is claimed with a lease that
// every page renews, so a worker that dies mid-run leaves it for the next one to resume from the
// last page it recorded, and two workers never page the same run at once.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { DriftRun } from "../../generated/prisma/client";

export type DriftTrigger = "schedule" | "button" | "cli" | "test";
type DriftRunStatus = "requested" | "running" | "interrupted" | "done" | "failed";

export type DriftRunSummary = {
  id: string;
  trigger: DriftTrigger;
  status: DriftRunStatus;
  requestedBy: string;
  requestedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  tenantsDone: number;
  pages: number;
  keysCompared: number;
  differences: number;
  error: string | null;
};

export function toDriftRunSummary(row: DriftRun): DriftRunSummary {
  return {
    id: row.id.toString(),
    trigger: row.trigger as DriftTrigger,
    status: row.status as DriftRunStatus,
    requestedBy: row.requestedBy,
    requestedAt: row.requestedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    tenantsDone: row.tenantsDone,
    pages: row.pages,
    keysCompared: row.keysCompared,
    differences: row.differences,
    error: row.error,
  };
}

/** Takes the run for this worker: a requested or interrupted one, or a running one whose lease ran out. */
export async function claimDriftRun(
  options: { id: bigint; now: Date; leaseMs: number },
  db: DbOrTx = prisma,
): Promise<DriftRun | null> {
  const rows = await db.$queryRaw<{ id: bigint }[]>`
    UPDATE drift_runs SET status = 'running', started_at = COALESCE(started_at, ${options.now}::timestamptz),
      lease_until = ${new Date(options.now.getTime() + options.leaseMs)}::timestamptz, error = NULL
    WHERE id = ${options.id}
      AND (status IN ('requested', 'interrupted') OR (status = 'running' AND lease_until < ${options.now}::timestamptz))
    RETURNING id`;
  if (rows.length === 0) return null;
  return db.driftRun.findUnique({ where: { id: options.id } });
}

/** The oldest run waiting for a worker (requested, interrupted, or abandoned mid-run). */
export async function nextClaimableRun(now: Date, db: DbOrTx = prisma): Promise<DriftRun | null> {
  return db.driftRun.findFirst({
    where: {
      OR: [{ status: { in: ["requested", "interrupted"] } }, { status: "running", leaseUntil: { lt: now } }],
    },
    orderBy: [{ requestedAt: "asc" }, { id: "asc" }],
  });
}

export async function latestDriftRuns(limit: number, db: DbOrTx = prisma): Promise<DriftRunSummary[]> {
  const rows = await db.driftRun.findMany({ orderBy: [{ requestedAt: "desc" }, { id: "desc" }], take: limit });
  return rows.map(toDriftRunSummary);
}
