import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db";
import { msUntilNextRun, startNightlyPurge, type PurgeClock } from "@/lib/retention/nightly-purge";
import type { PurgeRunSummary } from "@/lib/retention/purge-runs";
import { resetDatabase } from "../support/state";
import { claimsWithPrefix, insertClaims } from "./ledger-rows";

const HOUR_MS = 3_600_000;

beforeEach(resetDatabase);

/** A clock moved by hand: timers fire only when the test fires them. */
function manualClock(start: string) {
  let current = new Date(start);
  const timers: { fire: () => void; ms: number; cancelled: boolean }[] = [];
  const clock: PurgeClock = {
    now: () => current,
    setTimer(callback, ms) {
      const timer = { fire: callback, ms, cancelled: false };
      timers.push(timer);
      return () => {
        timer.cancelled = true;
      };
    },
  };
  return { clock, timers, set: (iso: string) => (current = new Date(iso)) };
}

describe("nightly purge schedule", () => {
  it("computes the wait until the next run hour in UTC", () => {
    expect(msUntilNextRun(new Date("2026-12-01T01:30:00Z"), 3)).toBe(1.5 * HOUR_MS);
    expect(msUntilNextRun(new Date("2026-12-01T03:00:00Z"), 3)).toBe(24 * HOUR_MS);
    expect(msUntilNextRun(new Date("2026-12-01T23:00:00Z"), 3)).toBe(4 * HOUR_MS);
    expect(msUntilNextRun(new Date("2026-12-31T23:59:59.999Z"), 0)).toBe(1);
  });

  it("runs the purge at the hour with the clock's time, then schedules the next night; stop cancels it", async () => {
    const expired = await insertClaims({ count: 3, receivedAt: new Date("2026-11-16T02:59:59.999Z") });
    const kept = await insertClaims({ count: 2, receivedAt: new Date("2026-11-17T03:00:00Z") });
    const { clock, timers, set } = manualClock("2026-12-01T01:30:00Z");
    let finished: (summary: PurgeRunSummary | null) => void = () => {};
    const ran = new Promise<PurgeRunSummary | null>((resolve) => (finished = resolve));

    const stop = startNightlyPurge({ hourUtc: 3, clock, onRun: (summary) => finished(summary) });
    try {
      expect(timers.map((t) => t.ms)).toEqual([1.5 * HOUR_MS]);

      set("2026-12-01T03:00:00Z");
      timers[0]!.fire();
      const summary = await ran;

      expect(summary).toMatchObject({ trigger: "schedule", status: "ran", claimsDeleted: 3 });
      expect(await claimsWithPrefix(expired)).toMatchObject({ count: 0 });
      expect(await claimsWithPrefix(kept)).toMatchObject({ count: 2 });
      expect(timers.map((t) => t.ms)).toEqual([1.5 * HOUR_MS, 24 * HOUR_MS]);
    } finally {
      stop();
    }
    expect(timers[1]!.cancelled).toBe(true);
    expect(await prisma.purgeRun.count()).toBe(1);
  });

  it("refuses an hour that is not 0-23", () => {
    expect(() => startNightlyPurge({ hourUtc: 24, clock: manualClock("2026-12-01T00:00:00Z").clock })).toThrow(
      "hourUtc must be a whole hour from 0 to 23, got 24",
    );
  });
});
