import "server-only";
// Deletes expired claims and receipts, clears payloads past their own shorter window
// (docs/design.md, invariant 6), then every other table that grows past its window
// (history-purges.ts, docs/retention.md), in short batches paced so ingest never stalls behind the purge
// (purge-pacing.ts: batch size follows a target duration, rests follow the batch's duration and
// its WAL; docs/decisions/0008-paced-row-purge.md). Safe to start from several replicas at once, directly or through a
// pooler: only the holder of the lease works, the others record `skipped_locked`
// (purge-connection.ts explains the lease and its transaction-scoped lock).
// Idempotent: a second run finds nothing to do; a run cut short (time budget, crash) is simply
// continued by the next one.
import { z } from "zod";
import { prisma, type Db } from "../../core/db/client";
import type { PurgeRun } from "../../generated/prisma/client";
import { AppError } from "../../core/errors";
import { describeError, log } from "../../core/log";
import { env } from "../../core/config/env";
import {
  HISTORY_PURGES,
  historyWindowDays,
  isHistoryTarget,
  type HistoryPurge,
  type HistoryTarget,
} from "./history-purges";
import { purgeBatch, type BatchResult, type KeysetPosition, type PurgePass, type PurgeTarget } from "./purge-batches";
import type { AuditPurgeContext } from "./audit-purge";
import { openPurgeLease, type PurgeLease, type PurgeLeaseResult } from "./purge-connection";
import { DEFAULT_PURGE_PACING, nextBatchRows, restAfterBatchMs, type PurgePacing } from "./purge-pacing";
import { toPurgeRunSummary, type PurgeRunSummary, type PurgeTrigger } from "./purge-runs";
import { getRetentionSettings } from "./settings";
import { retentionWindowProblem } from "../../core/retention/retention-window";

const HOUR_MS = 3_600_000;

export type PurgeBatchReport = {
  target: PurgeTarget;
  rows: number;
  durationMs: number;
  /** WAL written while the batch ran (ingest's of the moment included). */
  walBytes: number;
  /** The rest that follows it. */
  restMs: number;
};

type RunPurgeOptions = {
  trigger: PurgeTrigger;
  /** The purge's idea of "now" (cutoffs are computed from it). Tests move it; default the clock. */
  now?: Date;
  /** Rows per transaction, fixed. Default: adaptive (purge-pacing.ts), 100–5,000 towards a 40 ms batch. */
  batchSize?: number;
  /** Pause between batches, fixed. Default: paced (4× the batch's duration, and the WAL budget). */
  pauseMs?: number;
  /** Overrides of the adaptive pacing (benchmarks, a deployment with a replica to spare). */
  pacing?: Partial<PurgePacing>;
  /** Stop starting new batches after this long (a serverless cron has a deadline); the next run continues. */
  timeBudgetMs?: number;
  /** Called after every batch and awaited (progress; a benchmark holds the purge between batches this way). */
  onBatch?: (report: PurgeBatchReport) => void | Promise<void>;
  /** The nightly schedule's slot this run serves (recorded on the run; scheduled-purge.ts). */
  scheduledFor?: Date;
};

const optionsSchema = z.object({
  trigger: z.enum(["cli", "cron", "schedule", "manual"], { error: "trigger must be cli, cron, schedule or manual" }),
  now: z.date({ error: "now must be a date" }).optional(),
  batchSize: z
    .number()
    .int()
    .min(1, "batchSize must be at least 1")
    .max(50_000, "batchSize must be at most 50000")
    .optional(),
  pauseMs: z
    .number()
    .int()
    .min(0, "pauseMs must be at least 0")
    .max(60_000, "pauseMs must be at most 60000")
    .optional(),
  timeBudgetMs: z.number().int().min(0, "timeBudgetMs must be at least 0").optional(),
  scheduledFor: z.date({ error: "scheduledFor must be a date" }).optional(),
});

export async function runPurge(options: RunPurgeOptions, db: Db = prisma): Promise<PurgeRunSummary> {
  const run = startRun(options);
  const cutoffs = await purgeCutoffs(run, db);
  if ("refused" in cutoffs) return recordRunWithoutLease(run, "failed", cutoffs.refused, db);
  let lock: PurgeLeaseResult;
  try {
    lock = await openPurgeLease({ trigger: run.trigger, startedAt: run.startedAt, scheduledFor: run.scheduledFor });
  } catch (error) {
    log.error("purge could not connect", { trigger: run.trigger, error: describeError(error) });
    return recordRunWithoutLease(run, "failed", `could not open the purge connection: ${describeError(error)}`, db);
  }
  if (!lock.locked) {
    log.info("purge skipped: another replica holds the lock", { trigger: run.trigger });
    return recordRunWithoutLease(run, "skipped_locked", null, db);
  }
  try {
    return await purgeUnderLease(run, purgePhases(run, cutoffs), lock.lease, db);
  } finally {
    await lock.lease.close();
  }
}

/** The checked options, the pacing and the run's clock. */
type RunContext = z.infer<typeof optionsSchema> & {
  now: Date;
  pacing: PurgePacing;
  onBatch: RunPurgeOptions["onBatch"];
  startedAt: Date;
  /** Milliseconds since the run started. */
  elapsed: () => number;
};

function startRun(options: RunPurgeOptions): RunContext {
  const parsed = optionsSchema.safeParse({ ...options, onBatch: undefined, pacing: undefined });
  if (!parsed.success) throw new AppError("bad_request", parsed.error.issues[0]!.message);
  const pacing: PurgePacing = { ...DEFAULT_PURGE_PACING, ...options.pacing };
  // Zero passes would silently keep every payload past its window.
  if (!Number.isInteger(pacing.payloadPasses) || pacing.payloadPasses < 1 || pacing.payloadPasses > 16) {
    throw new AppError("bad_request", "payloadPasses must be a whole number from 1 to 16");
  }
  const now = parsed.data.now ?? new Date();
  const startedAt = new Date();
  const started = performance.now();
  return {
    ...parsed.data,
    now,
    pacing,
    onBatch: options.onBatch,
    startedAt,
    elapsed: () => Math.round(performance.now() - started),
  };
}

/** A run that never held the lease: refused, unable to connect, or another replica's turn. */
async function recordRunWithoutLease(
  run: RunContext,
  status: "skipped_locked" | "failed",
  error: string | null,
  db: Db,
): Promise<PurgeRunSummary> {
  const { trigger, startedAt, scheduledFor } = run;
  return toPurgeRunSummary(
    await db.purgeRun.create({
      data: { trigger, status, startedAt, finishedAt: new Date(), durationMs: run.elapsed(), error, scheduledFor },
    }),
  );
}

type Cutoffs = { claims: Date; payloads: Date; historyDays: Record<HistoryTarget, number> };

/**
 * Never purge with a window that a late retry could outlive (the margin comes from the
 * environment and may have changed since the stored settings were validated).
 */
async function purgeCutoffs(run: RunContext, db: Db): Promise<Cutoffs | { refused: string }> {
  try {
    const settings = await getRetentionSettings(db);
    const problem = retentionWindowProblem(settings);
    if (problem) throw new AppError("invalid_setting", `refusing to purge: ${problem.message}`);
    return {
      claims: daysBefore(run.now, settings.retentionDays),
      payloads: daysBefore(run.now, settings.payloadRetentionDays),
      historyDays: historyWindowDays(env(), settings.retentionDays),
    };
  } catch (error) {
    if (!(error instanceof AppError)) throw error; // the database is unreachable: nothing can be recorded
    log.error("purge refused", { trigger: run.trigger, error: error.publicMessage });
    return { refused: error.publicMessage };
  }
}

function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 24 * HOUR_MS);
}

/** What a run has done so far: the ledger's phases in the run's columns, every other table in rowsDeleted. */
type RunTotals = { claimsDeleted: number; receiptsDeleted: number; payloadsCleared: number; batches: number };

type Phase = {
  target: PurgeTarget;
  before: Date;
  from: KeysetPosition;
  total?: keyof RunTotals;
  pass?: PurgePass;
  audit?: AuditPurgeContext;
};

/**
 * Claims before payloads: clearing a payload of a row about to be deleted is wasted work. The
 * payload walk starts at the claim cutoff: everything older was just deleted (or is kept with its
 * payload), and walking the index over those fresh dead entries costs seconds.
 */
function purgePhases(run: RunContext, cutoffs: Cutoffs): Phase[] {
  const { now, pacing, trigger } = run;
  return [
    { target: "claims", before: cutoffs.claims, from: null, total: "claimsDeleted" },
    // Payload clears in interleaved passes, so each clear stays a HOT update (purge-pacing.ts).
    ...Array.from({ length: pacing.payloadPasses }, (_, index) => ({
      target: "payloads" as const,
      before: cutoffs.payloads,
      from: { at: cutoffs.claims, id: "0" },
      total: "payloadsCleared" as const,
      pass: { index, of: pacing.payloadPasses },
    })),
    {
      target: "kept_payloads",
      before: new Date(Math.min(cutoffs.claims.getTime(), cutoffs.payloads.getTime())),
      from: null,
      total: "payloadsCleared",
    },
    { target: "receipts", before: cutoffs.claims, from: null, total: "receiptsDeleted" },
    // Every other table that grows, each by its own window (history-purges.ts).
    ...(Object.keys(HISTORY_PURGES) as HistoryTarget[]).map((target) => ({
      target,
      before: daysBefore(now, cutoffs.historyDays[target]),
      from: null,
      audit: target === "audit_log" ? { now, windowDays: cutoffs.historyDays[target], trigger } : undefined,
    })),
  ];
}

/** The run's row, kept up to date as batches land. */
type RunProgress = {
  totals: RunTotals;
  rowsDeleted: Record<string, number>;
  save: (status: string, error?: string | null) => Promise<PurgeRun>;
};

function trackProgress(run: RunContext, runId: bigint, db: Db): RunProgress {
  const totals: RunTotals = { claimsDeleted: 0, receiptsDeleted: 0, payloadsCleared: 0, batches: 0 };
  const rowsDeleted: Record<string, number> = {};
  const save = (status: string, error: string | null = null) =>
    db.purgeRun.update({
      where: { id: runId },
      data: {
        ...totals,
        rowsDeleted,
        status,
        error,
        durationMs: run.elapsed(),
        finishedAt: status === "running" ? null : new Date(),
      },
    });
  return { totals, rowsDeleted, save };
}

/** Every phase in order, then the run's end recorded and logged; a failure is recorded, not thrown. */
async function purgeUnderLease(run: RunContext, phases: Phase[], lease: PurgeLease, db: Db): Promise<PurgeRunSummary> {
  const progress = trackProgress(run, lease.runId, db);
  let outOfTime = false;
  let failure: string | null = null;
  try {
    for (const phase of phases) {
      outOfTime = (await runPhase(phase, run, lease, progress)) === "out_of_time";
      if (outOfTime) break;
    }
  } catch (error) {
    failure = describeError(error);
  }
  const summary = toPurgeRunSummary(await recordEnd(() => progress.save(failure ? "failed" : "ran", failure)));
  const fields = {
    trigger: run.trigger,
    ...progress.totals,
    rows_deleted: progress.rowsDeleted,
    duration_ms: summary.durationMs,
    out_of_time: outOfTime,
  };
  if (failure) log.error("purge failed", { ...fields, error: failure });
  else log.info("purge finished", fields);
  return summary;
}

/**
 * One phase, batch after paced batch, until a batch comes back short or the time budget is spent.
 * Each phase starts small again: a payload batch costs more per row than a delete.
 */
async function runPhase(
  phase: Phase,
  run: RunContext,
  lease: PurgeLease,
  progress: RunProgress,
): Promise<"done" | "out_of_time"> {
  const { batchSize, pacing, timeBudgetMs } = run;
  let after: KeysetPosition = phase.from;
  let rows = batchSize ?? pacing.initialRows;
  for (;;) {
    if (timeBudgetMs !== undefined && run.elapsed() >= timeBudgetMs) return "out_of_time";
    const batchStarted = performance.now();
    const batch = await lease.batch((connection) =>
      purgeBatch(connection, phase.target, {
        before: phase.before,
        after,
        limit: rows,
        pass: phase.pass,
        audit: phase.audit,
      }),
    );
    const measured = { rows: batch.scanned, durationMs: performance.now() - batchStarted, walBytes: batch.walBytes };
    const restMs = run.pauseMs ?? restAfterBatchMs(pacing, measured);
    after = batch.last;
    if (batch.rows > 0) {
      countBatch(phase, batch, progress);
      await run.onBatch?.({ target: phase.target, ...measured, rows: batch.rows, restMs });
      await progress.save("running");
    }
    if (batch.scanned < rows) return "done";
    if (batchSize === undefined) rows = nextBatchRows(pacing, rows, measured);
    if (restMs > 0) await delay(restMs);
  }
}

function countBatch(phase: Phase, batch: BatchResult, { totals, rowsDeleted }: RunProgress): void {
  if (phase.total) {
    totals[phase.total] += batch.rows;
  } else if (isHistoryTarget(phase.target)) {
    const { table, dependent }: HistoryPurge = HISTORY_PURGES[phase.target];
    rowsDeleted[table] = (rowsDeleted[table] ?? 0) + batch.rows;
    if (dependent) rowsDeleted[dependent] = (rowsDeleted[dependent] ?? 0) + batch.dependentRows;
  }
  totals.batches += 1;
}

/** How long a run keeps trying to record its end through an outage (a failover takes seconds). */
const RECORD_END_FOR_MS = 60_000;

/**
 * The run's last word, retried while the database is away: a row left `running` keeps its lease,
 * and every purge until the lease expires (minutes) would step aside, the nightly one included.
 */
async function recordEnd<T>(write: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + RECORD_END_FOR_MS;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await delay(1_000);
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
