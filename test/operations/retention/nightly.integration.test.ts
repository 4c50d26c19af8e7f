// The nightly purge as the job queue runs it (lib/operations/retention/scheduled-purge.ts): the cron slot's
// time is recorded on the run, a slot that ran is never purged twice, and a failure throws so the
// queue retries it. The once-per-day-across-workers half is test/operations/worker/cron-once.integration.test.ts.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { runScheduledPurge, ScheduledPurgeFailed } from "@/lib/operations/retention/scheduled-purge";
import { resetDatabase } from "../../support/state";
import { claimsWithPrefix, insertClaims } from "../../support/ledger-rows";

beforeEach(resetDatabase);

describe("scheduled purge", () => {
  it("purges with the slot's time, records the slot, and does nothing for a slot that already ran", async () => {
    const expired = await insertClaims({ count: 3, receivedAt: new Date("2026-11-16T02:59:59.999Z") });
    const kept = await insertClaims({ count: 2, receivedAt: new Date("2026-11-17T03:00:00Z") });
    const slot = new Date("2026-12-01T03:00:00Z");

    const first = await runScheduledPurge({ scheduledFor: slot, now: slot });
    expect(first).toMatchObject({ outcome: "purged", run: { trigger: "schedule", status: "ran", claimsDeleted: 3 } });
    expect(await claimsWithPrefix(expired)).toMatchObject({ count: 0 });
    expect(await claimsWithPrefix(kept)).toMatchObject({ count: 2 });

    // The same slot again (a replayed job): the recorded run answers, nothing is purged.
    const again = await runScheduledPurge({ scheduledFor: slot, now: new Date("2026-12-05T03:00:00Z") });
    expect(again).toMatchObject({ outcome: "already_ran", run: { id: first.run.id } });
    expect(await claimsWithPrefix(kept)).toMatchObject({ count: 2 });
    expect(await prisma.purgeRun.count()).toBe(1);
    expect((await prisma.purgeRun.findFirstOrThrow()).scheduledFor).toEqual(slot);
  });

  it("a refused purge throws (the queue retries it) and leaves the slot open for the retry", async () => {
    // A retention window the provider's retries could outlive: the purge refuses to run.
    await prisma.setting.create({ data: { key: "retention", value: { retentionDays: 2, retryHorizonHours: 28 } } });
    const slot = new Date("2026-12-01T03:00:00Z");
    await expect(runScheduledPurge({ scheduledFor: slot })).rejects.toBeInstanceOf(ScheduledPurgeFailed);
    expect(await prisma.purgeRun.findFirstOrThrow()).toMatchObject({ status: "failed", scheduledFor: slot });
    await prisma.setting.deleteMany();
    expect(await runScheduledPurge({ scheduledFor: slot })).toMatchObject({ outcome: "purged" });
  });
});
