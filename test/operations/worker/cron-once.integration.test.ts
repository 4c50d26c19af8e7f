// Two workers share one queue: the nightly purge's cron slot becomes ONE job, run ONCE, per day.
// The clock is controlled as graphile-worker's own cron tests do it: fake Date and timers in this
// process (both workers run here), moved forward with advanceTimersByTimeAsync — nothing sleeps.
// The database's clock is real; the fake days lie in its past, so every slot's job is due at once.
import { EventEmitter } from "node:events";
import type { Runner } from "graphile-worker";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { prisma } from "@/lib/core/db/client";
import type { BackgroundJob } from "@/lib/operations/worker/background-jobs";
import { startJobWorker } from "@/lib/operations/worker/start-job-worker";
import { runScheduledPurge } from "@/lib/operations/retention/scheduled-purge";
import { resetDatabase } from "../../support/state";
import { claimsWithPrefix, insertClaims } from "../../support/ledger-rows";

const SECOND = 1_000;
const HOUR = 3_600 * SECOND;
let runners: Runner[] = [];

beforeEach(async () => {
  await resetDatabase();
  await prisma.$executeRawUnsafe(`DELETE FROM graphile_worker._private_jobs`);
  await prisma.$executeRawUnsafe(`DELETE FROM graphile_worker._private_known_crontabs`);
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(runners.map((runner) => runner.stop()));
  runners = [];
});

/** Resolves with the first event of `name` on any of the emitters. */
function next(emitters: EventEmitter[], name: string): Promise<unknown> {
  return new Promise((resolve) => emitters.forEach((e) => e.once(name, resolve)));
}
function count(emitters: EventEmitter[], name: string): { n: number } {
  const counter = { n: 0 };
  emitters.forEach((e) => e.on(name, () => counter.n++));
  return counter;
}

describe("the queue's cron across two workers", () => {
  it("queues and runs the nightly purge once per day, whatever the number of workers", async () => {
    const expired = await insertClaims({ count: 4, receivedAt: new Date("2026-02-01T00:00:00Z") });
    vi.useFakeTimers({
      now: new Date("2026-03-10T02:59:30Z"),
      toFake: ["Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval"],
    });
    const slots: string[] = [];
    const purge: BackgroundJob = {
      task: "retention.purge",
      run: async ({ scheduledFor }) => {
        slots.push(scheduledFor!.toISOString());
        await runScheduledPurge({ scheduledFor: scheduledFor! });
      },
      cron: "0 3 * * *",
      maxAttempts: 5,
    };
    const emitters = [new EventEmitter(), new EventEmitter()];
    const started = emitters.map((e) => new Promise((resolve) => e.once("cron:started", resolve)));
    const scheduleCalls = count(emitters, "cron:schedule");
    const jobStarts = count(emitters, "job:start");
    const connectionString = process.env.DATABASE_URL!;
    for (const events of emitters) {
      runners.push(
        await startJobWorker({ connectionString, jobs: [purge], concurrency: 2, pollIntervalMs: 500, events }),
      );
    }
    await Promise.all(started);

    // 03:00:01 on day 1: both workers' crons fire for the slot; one job is queued and run.
    let done = next(emitters, "job:complete");
    await vi.advanceTimersByTimeAsync(31 * SECOND);
    await done;
    expect(scheduleCalls.n).toBe(2); // each worker tried…
    expect(jobStarts.n).toBe(1); // …one job ran
    expect(slots).toEqual(["2026-03-10T03:00:00.000Z"]);
    expect(await claimsWithPrefix(expired)).toMatchObject({ count: 0 });

    // The rest of the day: nothing more is queued. Then 03:00:01 on day 2: once again.
    done = next(emitters, "job:complete");
    await vi.advanceTimersByTimeAsync(24 * HOUR);
    await done;
    expect(scheduleCalls.n).toBe(4);
    expect(jobStarts.n).toBe(2);
    expect(slots).toEqual(["2026-03-10T03:00:00.000Z", "2026-03-11T03:00:00.000Z"]);

    const runs = await prisma.purgeRun.findMany({ orderBy: { id: "asc" } });
    expect(runs.map((r) => [r.status, r.scheduledFor?.toISOString()])).toEqual([
      ["ran", "2026-03-10T03:00:00.000Z"],
      ["ran", "2026-03-11T03:00:00.000Z"],
    ]);
    // A worker writes its completions in batches on a timer, set under the fake clock: run it,
    // then stop on the real clock (the queue's stop waits on timers of its own). Then no job may
    // be left behind.
    await vi.advanceTimersByTimeAsync(5 * SECOND);
    vi.useRealTimers();
    await Promise.all(runners.map((runner) => runner.stop()));
    runners = [];
    const left = await prisma.$queryRawUnsafe<unknown[]>(
      `SELECT task_identifier, run_at, attempts, key, locked_at, last_error FROM graphile_worker.jobs`,
    );
    expect(left).toEqual([]);
  });
});
