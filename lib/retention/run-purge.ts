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
import { prisma, type Db } from "../db";
import { AppError } from "../errors";
import { describeError, log } from "../log";
import { env } from "../env";
import {
  HISTORY_PURGES,
  historyWindowDays,
  isHistoryTarget,
  type HistoryPurge,
  type HistoryTarget,
} from "./history-purges";
import { purgeBatch, type KeysetPosition, type PurgePass, type PurgeTarget } from "./purge-batches";
import { openPurgeLease } from "./purge-connection";
import { DEFAULT_PURGE_PACING, nextBatchRows, restAfterBatchMs, type PurgePacing } from "./purge-pacing";
import { toPurgeRunSummary, type PurgeRunSummary, type PurgeTrigger } from "./purge-runs";
import { getRetentionSettings } from "./settings";
import { retentionWindowProblem } from "./retention-window";

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

export type RunPurgeOptions = {
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
  const parsed = optionsSchema.safeParse({ ...options, onBatch: undefined, pacing: undefined });
  if (!parsed.success) throw new AppError("bad_request", parsed.error.issues[0]!.message);
  const { trigger, batchSize, pauseMs, timeBudgetMs, scheduledFor } = parsed.data;
  const pacing: PurgePacing = { ...DEFAULT_PURGE_PACING, ...options.pacing };
  // Zero passes would silently keep every payload past its window.
  if (!Number.isInteger(pacing.payloadPasses) || pacing.payloadPasses < 1 || pacing.payloadPasses > 16) {
    throw new AppError("bad_request", "payloadPasses must be a whole number from 1 to 16");
  }
  const now = parsed.data.now ?? new Date();
  const startedAt = new Date();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);

  const record = (status: "skipped_locked" | "failed", error: string | null) =>
    db.purgeRun
      .create({
        data: { trigger, status, startedAt, finishedAt: new Date(), durationMs: elapsed(), error, scheduledFor },
      })
      .then(toPurgeRunSummary);

  // Never purge with a window that a late retry could outlive (the margin comes from the
  // environment and may have changed since the stored settings were validated).
  let cutoffs: { claims: Date; payloads: Date };
  let windows: Record<HistoryTarget, number>;
  try {
    const settings = await getRetentionSettings(db);
    const problem = retentionWindowProblem(settings);
    if (problem) throw new AppError("invalid_setting", `refusing to purge: ${problem.message}`);
    cutoffs = {
      claims: new Date(now.getTime() - settings.retentionDays * 24 * HOUR_MS),
      payloads: new Date(now.getTime() - settings.payloadRetentionDays * 24 * HOUR_MS),
    };
    windows = historyWindowDays(env(), settings.retentionDays);
  } catch (error) {
    if (!(error instanceof AppError)) throw error; // the database is unreachable: nothing can be recorded
    log.error("purge refused", { trigger, error: error.publicMessage });
    return record("failed", error.publicMessage);
  }

  let lock;
  try {
    lock = await openPurgeLease({ trigger, startedAt, scheduledFor });
  } catch (error) {
    log.error("purge could not connect", { trigger, error: describeError(error) });
    return record("failed", `could not open the purge connection: ${describeError(error)}`);
  }
  if (!lock.locked) {
    log.info("purge skipped: another replica holds the lock", { trigger });
    return record("skipped_locked", null);
  }

  const lease = lock.lease;
  try {
    const run = { id: lease.runId };
    const totals = { claimsDeleted: 0, receiptsDeleted: 0, payloadsCleared: 0, batches: 0 };
    const rowsDeleted: Record<string, number> = {};
    const progress = (status: string, error: string | null = null) =>
      db.purgeRun.update({
        where: { id: run.id },
        data: {
          ...totals,
          rowsDeleted,
          status,
          error,
          durationMs: elapsed(),
          finishedAt: status === "running" ? null : new Date(),
        },
      });

    let outOfTime = false;
    let failure: string | null = null;
    try {
      // Claims before payloads: clearing a payload of a row about to be deleted is wasted work.
      // The payload walk starts at the claim cutoff: everything older was just deleted (or is kept
      // with its payload), and walking the index over those fresh dead entries costs seconds.
      const phases: {
        target: PurgeTarget;
        before: Date;
        from: KeysetPosition;
        /** The ledger's phases count into the run's columns; every other table into rowsDeleted. */
        total?: keyof typeof totals;
        pass?: PurgePass;
        extra?: unknown[];
      }[] = [
        { target: "claims", before: cutoffs.claims, from: null, total: "claimsDeleted" },
        // Payload clears in interleaved passes, so each clear stays a HOT update (purge-pacing.ts).
        ...Array.from({ length: pacing.payloadPasses }, (_, index) => ({
          target: "payloads" as const,
          before: cutoffs.payloads,
          from: { at: cutoffs.claims, id: "0" },
          total: "payloadsCleared" as const,
          pass: { index, of: pacing.payloadPasses },
        })),
        { target: "receipts", before: cutoffs.claims, from: null, total: "receiptsDeleted" },
        // Every other table that grows, each by its own window (history-purges.ts).
        ...(Object.keys(HISTORY_PURGES) as HistoryTarget[]).map((target) => ({
          target,
          before: new Date(now.getTime() - windows[target] * 24 * HOUR_MS),
          from: null,
          extra: target === "audit_log" ? [now, windows[target], trigger] : undefined,
        })),
      ];
      // Each phase starts small again: a payload batch costs more per row than a delete.
      for (const phase of phases) {
        let after: KeysetPosition = phase.from;
        let rows = batchSize ?? pacing.initialRows;
        for (;;) {
          if (timeBudgetMs !== undefined && elapsed() >= timeBudgetMs) {
            outOfTime = true;
            break;
          }
          const batchStarted = performance.now();
          const batch = await lease.batch((connection) =>
            purgeBatch(connection, phase.target, {
              before: phase.before,
              after,
              limit: rows,
              pass: phase.pass,
              extra: phase.extra,
            }),
          );
          const measured = {
            rows: batch.scanned,
            durationMs: performance.now() - batchStarted,
            walBytes: batch.walBytes,
          };
          const restMs = pauseMs ?? restAfterBatchMs(pacing, measured);
          after = batch.last;
          if (batch.rows > 0) {
            if (phase.total) {
              totals[phase.total] += batch.rows;
            } else if (isHistoryTarget(phase.target)) {
              const { table, dependent }: HistoryPurge = HISTORY_PURGES[phase.target];
              rowsDeleted[table] = (rowsDeleted[table] ?? 0) + batch.rows;
              if (dependent) rowsDeleted[dependent] = (rowsDeleted[dependent] ?? 0) + batch.dependentRows;
            }
            totals.batches += 1;
            await options.onBatch?.({ target: phase.target, ...measured, rows: batch.rows, restMs });
            await progress("running");
          }
          if (batch.scanned < rows) break;
          if (batchSize === undefined) rows = nextBatchRows(pacing, rows, measured);
          if (restMs > 0) await delay(restMs);
        }
        if (outOfTime) break;
      }
    } catch (error) {
      failure = describeError(error);
    }

    const summary = toPurgeRunSummary(await recordEnd(() => progress(failure ? "failed" : "ran", failure)));
    const fields = {
      trigger,
      ...totals,
      rows_deleted: rowsDeleted,
      duration_ms: summary.durationMs,
      out_of_time: outOfTime,
    };
    if (failure) log.error("purge failed", { ...fields, error: failure });
    else log.info("purge finished", fields);
    return summary;
  } finally {
    await lease.close();
  }
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
