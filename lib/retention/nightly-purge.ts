import "server-only";
// The in-process nightly purge of a self-hosted deployment (the worker process runs it). Every
// replica may schedule it: at the hour they all try, one takes the advisory lock and the others
// record `skipped_locked`. A failed run is logged and recorded; the schedule carries on.
import { env } from "../env";
import { describeError, log } from "../log";
import type { PurgeRunSummary } from "./purge-runs";
import { runPurge } from "./run-purge";

/** Time as the schedule sees it; tests pass a clock they move by hand. */
export type PurgeClock = {
  now(): Date;
  /** Calls `callback` after `ms`; returns a function that cancels it. */
  setTimer(callback: () => void, ms: number): () => void;
};

export const systemClock: PurgeClock = {
  now: () => new Date(),
  setTimer(callback, ms) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/** Milliseconds from `now` to the next `hourUtc`:00:00 UTC (tomorrow's if that time has passed). */
export function msUntilNextRun(now: Date, hourUtc: number): number {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hourUtc));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next.getTime() - now.getTime();
}

export type NightlyPurgeOptions = {
  /** Default PURGE_HOUR_UTC (3). */
  hourUtc?: number;
  clock?: PurgeClock;
  /** After every scheduled run, failed ones included (tests, metrics). */
  onRun?: (summary: PurgeRunSummary | null, error?: unknown) => void;
};

/** Schedules the purge every night; returns the function that stops the schedule. */
export function startNightlyPurge(options: NightlyPurgeOptions = {}): () => void {
  const clock = options.clock ?? systemClock;
  const hourUtc = options.hourUtc ?? env().PURGE_HOUR_UTC;
  if (!Number.isInteger(hourUtc) || hourUtc < 0 || hourUtc > 23) {
    throw new RangeError(`hourUtc must be a whole hour from 0 to 23, got ${hourUtc}`);
  }
  let stopped = false;
  let cancel: (() => void) | null = null;

  const scheduleNext = () => {
    if (stopped) return;
    const wait = msUntilNextRun(clock.now(), hourUtc);
    log.info("purge scheduled", { at: new Date(clock.now().getTime() + wait).toISOString() });
    cancel = clock.setTimer(() => void runOnce(), wait);
  };

  const runOnce = async () => {
    cancel = null;
    if (stopped) return;
    try {
      const summary = await runPurge({ trigger: "schedule", now: clock.now() });
      options.onRun?.(summary);
    } catch (error) {
      // The database was unreachable: nothing could be recorded. Tomorrow is another run.
      log.error("scheduled purge failed", { error: describeError(error) });
      options.onRun?.(null, error);
    }
    scheduleNext();
  };

  scheduleNext();
  return () => {
    stopped = true;
    cancel?.();
    cancel = null;
  };
}
