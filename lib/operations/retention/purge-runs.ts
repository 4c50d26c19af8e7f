import "server-only";
// The record of every purge run (purge_runs), as plain values a page can render: ids are strings
// because a bigint does not cross into a client component or JSON.
import { z } from "zod";
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import type { PurgeRun } from "../../generated/prisma/client";

export type PurgeTrigger = "cli" | "cron" | "schedule" | "manual";
/** "running" only while a run is in progress, or if its process died before it could finish. */
type PurgeRunStatus = "running" | "ran" | "skipped_locked" | "failed";

export type PurgeRunSummary = {
  id: string;
  trigger: PurgeTrigger;
  status: PurgeRunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  claimsDeleted: number;
  receiptsDeleted: number;
  payloadsCleared: number;
  /** Rows deleted from every other bounded table, by table (docs/retention.md). */
  rowsDeleted: Record<string, number>;
  batches: number;
  durationMs: number;
  error: string | null;
};

export function toPurgeRunSummary(row: PurgeRun): PurgeRunSummary {
  return {
    id: row.id.toString(),
    trigger: row.trigger as PurgeTrigger,
    status: row.status as PurgeRunStatus,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    claimsDeleted: row.claimsDeleted,
    receiptsDeleted: row.receiptsDeleted,
    payloadsCleared: row.payloadsCleared,
    rowsDeleted: (row.rowsDeleted ?? {}) as Record<string, number>,
    batches: row.batches,
    durationMs: row.durationMs,
    error: row.error,
  };
}

const listSchema = z.object({
  limit: z
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(500, "limit must be at most 500"),
});

/** Newest first. */
export async function listPurgeRuns(options: { limit: number }, db: DbOrTx = prisma): Promise<PurgeRunSummary[]> {
  const parsed = listSchema.safeParse(options);
  if (!parsed.success) throw new AppError("bad_request", parsed.error.issues[0]!.message);
  const rows = await db.purgeRun.findMany({
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: parsed.data.limit,
  });
  return rows.map(toPurgeRunSummary);
}
