import "server-only";
// Stored readiness runs, for the Readiness page and the overview's line.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import type { StepResult } from "../../operations/readiness/types";

export type StoredReadinessRun = {
  id: string;
  startedAt: Date;
  finishedAt: Date | null;
  actor: string;
  trigger: string;
  passed: boolean;
  steps: StepResult[];
};

type Row = {
  id: bigint;
  startedAt: Date;
  finishedAt: Date | null;
  actor: string;
  trigger: string;
  passed: boolean;
  steps: unknown;
};

function toStoredRun(row: Row): StoredReadinessRun {
  return {
    id: row.id.toString(),
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    actor: row.actor,
    trigger: row.trigger,
    passed: row.passed,
    steps: Array.isArray(row.steps) ? (row.steps as StepResult[]) : [],
  };
}

export async function listReadinessRuns(
  options: { actor: Actor; limit?: number },
  db: DbOrTx = prisma,
): Promise<StoredReadinessRun[]> {
  authorize(options.actor, "readiness.view");
  const rows = await db.readinessRun.findMany({
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: Math.min(options.limit ?? 10, 100),
  });
  return rows.map(toStoredRun);
}

/** The overview's line: the last finished run, and what it says is missing. */
export async function getReadinessSummary(
  options: { actor: Actor },
  db: DbOrTx = prisma,
): Promise<{ lastRun: StoredReadinessRun | null; missing: string[] }> {
  authorize(options.actor, "readiness.view");
  const row = await db.readinessRun.findFirst({
    where: { finishedAt: { not: null } },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
  });
  if (!row) return { lastRun: null, missing: [] };
  const lastRun = toStoredRun(row);
  return { lastRun, missing: lastRun.steps.filter((s) => !s.passed).map((s) => s.title) };
}
