import { beforeEach, describe, expect, it } from "vitest";
import { getRetentionStats } from "@/lib/views/retention/retention-stats";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { resetDatabase } from "../../support/state";
import { DAY_MS, insertClaims } from "../../support/ledger-rows";

const now = new Date("2026-12-01T12:00:00.000Z");
const at = (iso: string) => new Date(iso);

beforeEach(resetDatabase);

describe("retention stats", () => {
  it("reports an empty ledger without inventing figures", async () => {
    const stats = await getRetentionStats(undefined, { now });
    expect(stats).toMatchObject({
      claimRows: 0,
      receiptRows: 0,
      oldestClaimAt: null,
      expiringNext24h: 0,
      expiredAwaitingPurge: 0,
      lastRun: null,
    });
    expect(stats.growthPerDay).toHaveLength(14);
    expect(stats.growthPerDay.every((d) => d.rows === 0)).toBe(true);
  });

  it("counts rows, bytes, the oldest claim, what expires within 24 h, growth per UTC day and the last run", async () => {
    // The window (14 days) ends at 2026-11-17T12:00Z; the next 24 h take it to 2026-11-18T12:00Z.
    await insertClaims({ count: 4, receivedAt: at("2026-11-10T08:00:00Z") }); // already expired
    await insertClaims({ count: 3, receivedAt: at("2026-11-17T12:00:00Z") }); // first ms of the window: expires next
    await insertClaims({ count: 2, receivedAt: at("2026-11-18T11:59:59.999Z") }); // expires within 24 h
    await insertClaims({ count: 5, receivedAt: at("2026-11-18T12:00:00Z") }); // expires the day after
    await insertClaims({ count: 6, receivedAt: at("2026-12-01T00:00:00Z") }); // today
    await insertClaims({ count: 1, receivedAt: at("2026-11-30T23:59:59.999Z") }); // yesterday

    const before = await getRetentionStats(undefined, { now });

    expect(before).toMatchObject({
      claimRows: 21,
      receiptRows: 21,
      expiringNext24h: 5,
      expiredAwaitingPurge: 4,
      lastRun: null,
    });
    expect(before.oldestClaimAt).toEqual(at("2026-11-10T08:00:00Z"));
    expect(before.claimBytes).toBeGreaterThan(8192);
    expect(before.receiptBytes).toBeGreaterThan(8192);
    expect(before.growthPerDay[0]).toEqual({ day: "2026-11-18", rows: 7 });
    expect(before.growthPerDay.at(-2)).toEqual({ day: "2026-11-30", rows: 1 });
    expect(before.growthPerDay.at(-1)).toEqual({ day: "2026-12-01", rows: 6 });
    expect(before.growthPerDay.map((d) => d.day)).toHaveLength(14);

    const run = await runPurge({ trigger: "manual", now, pauseMs: 0 });
    const after = await getRetentionStats(undefined, { now });

    expect(after).toMatchObject({ claimRows: 17, receiptRows: 17, expiredAwaitingPurge: 0, lastRun: run });
    expect(after.oldestClaimAt).toEqual(at("2026-11-17T12:00:00Z"));

    // A day later, the claims that were "expiring in the next 24 h" are the ones a purge takes.
    const tomorrow = await runPurge({ trigger: "manual", now: new Date(now.getTime() + DAY_MS), pauseMs: 0 });
    expect(tomorrow.claimsDeleted).toBe(before.expiringNext24h);
  });
});
