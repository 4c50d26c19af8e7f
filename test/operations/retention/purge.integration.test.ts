import pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { AppError } from "@/lib/core/errors";
import { PURGE_LOCK_KEY } from "@/lib/operations/retention/purge-connection";
import { listPurgeRuns } from "@/lib/operations/retention/purge-runs";
import { runPurge, type PurgeBatchReport } from "@/lib/operations/retention/run-purge";
import { resetDatabase } from "../../support/state";
import { claimsWithPrefix, DAY_MS, insertClaims, receiptsWithPrefix } from "../../support/ledger-rows";

const now = new Date("2026-12-01T03:00:00.000Z");
const daysAgo = (days: number, extraMs = 0) => new Date(now.getTime() - days * DAY_MS + extraMs);

beforeEach(resetDatabase);

/**
 * On-page pruning between passes needs no snapshot in this database older than the last pass. An
 * autovacuum ANALYZE of a freshly filled table (the claims or their receipts), slowed down by a
 * busy machine, holds one throughout; so autovacuum is off for the two, and the run starts once no
 * other session here holds a snapshot. Only these two: altering every table would churn pg_class
 * enough to bring an ANALYZE of the catalog, with its snapshot, into the run.
 */
async function withoutAutovacuum(run: () => Promise<void>): Promise<void> {
  const tables = ["processed_events", "receipts"];
  for (const name of tables) await prisma.$executeRawUnsafe(`ALTER TABLE ${name} SET (autovacuum_enabled = false)`);
  try {
    await expect
      .poll(
        async () => {
          const [row] = await prisma.$queryRaw<{ holding: number }[]>`
            SELECT count(*)::int AS holding FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL`;
          return row!.holding;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(0);
    await run();
  } finally {
    for (const name of tables) await prisma.$executeRawUnsafe(`ALTER TABLE ${name} RESET (autovacuum_enabled)`);
  }
}

describe("purge", () => {
  it("deletes expired claims and receipts in batches, clears payloads past their window, keeps the rest", async () => {
    const expired = await insertClaims({ count: 25, receivedAt: daysAgo(14, -1) });
    const lastMsInside = await insertClaims({ count: 3, receivedAt: daysAgo(14) });
    const payloadExpired = await insertClaims({ count: 12, receivedAt: daysAgo(8) });
    const fresh = await insertClaims({ count: 5, receivedAt: daysAgo(1) });
    const batches: PurgeBatchReport[] = [];

    const run = await runPurge({
      trigger: "manual",
      now,
      batchSize: 10,
      pauseMs: 0,
      onBatch: (b) => void batches.push(b),
    });

    expect(run).toMatchObject({
      trigger: "manual",
      status: "ran",
      claimsDeleted: 25,
      receiptsDeleted: 25,
      payloadsCleared: 15,
      error: null,
    });
    // 25 claims in 10-row batches = 3; 15 payloads (consecutive ids) in three interleaved passes of
    // 5 (id % 3, purge-pacing.ts); 25 receipts = 3.
    expect(batches.map((b) => [b.target, b.rows])).toEqual([
      ["claims", 10],
      ["claims", 10],
      ["claims", 5],
      ["payloads", 5],
      ["payloads", 5],
      ["payloads", 5],
      ["receipts", 10],
      ["receipts", 10],
      ["receipts", 5],
    ]);
    expect(run.batches).toBe(9);
    expect(await claimsWithPrefix(expired)).toEqual({ count: 0, withPayload: 0 });
    expect(await receiptsWithPrefix(expired)).toBe(0);
    // A claim exactly at the cutoff is still inside the window: kept, receipt too (payload gone).
    expect(await claimsWithPrefix(lastMsInside)).toEqual({ count: 3, withPayload: 0 });
    expect(await receiptsWithPrefix(lastMsInside)).toBe(3);
    // The claim outlives its payload.
    expect(await claimsWithPrefix(payloadExpired)).toEqual({ count: 12, withPayload: 0 });
    expect(await claimsWithPrefix(fresh)).toEqual({ count: 5, withPayload: 5 });

    const [recorded] = await listPurgeRuns({ limit: 1 });
    expect(recorded).toEqual(run);
    expect(recorded!.finishedAt).not.toBeNull();
  });

  it("clears the payloads of dense pages with HOT updates only: every row version stays on its page", () =>
    withoutAutovacuum(async () => {
      // A 2-byte filler: ~45 rows a page at fillfactor 75, whose free quarter holds the payload-less
      // versions of about a third of them. Interleaved passes let on-page pruning make room between
      // passes; in one pass most clears would move their row to another page, with an entry in each
      // index (the WAL that costs: docs/decisions/0014).
      // On-page pruning is opportunistic: a snapshot PostgreSQL holds elsewhere in the cluster
      // during the run (seen in CI with many test files at once, not traced to a session here)
      // stops it for that run. So up to three fresh runs, one of which must keep every row on its
      // page; a single-pass clear moves over a thousand rows in every run (the next test).
      const attempts: { moved: number; holders: unknown[] }[] = [];
      for (let attempt = 0; attempt < 3 && attempts.at(-1)?.moved !== 0; attempt++) {
        if (attempt > 0) await resetDatabase();
        const dense = await insertClaims({ count: 3_000, receivedAt: daysAgo(8), payloadFiller: 2 });
        const pages = () =>
          prisma.$queryRaw<{ id: bigint; page: number }[]>`
          SELECT id, (ctid::text::point)[0]::int AS page FROM processed_events WHERE event_id LIKE ${dense + "%"} ORDER BY id`;
        const before = await pages();

        const run = await runPurge({ trigger: "manual", now, pauseMs: 0 });

        expect(run.payloadsCleared).toBe(3_000);
        expect(await claimsWithPrefix(dense)).toEqual({ count: 3_000, withPayload: 0 });
        const moved = (await pages()).filter((row, i) => row.page !== before[i]!.page).length;
        const holders = await prisma.$queryRaw<unknown[]>`
          SELECT datname, backend_type, left(query, 80) AS query FROM pg_stat_activity
          WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid()`;
        attempts.push({ moved, holders });
      }
      expect(attempts.at(-1)!.moved, JSON.stringify(attempts)).toBe(0);
    }));

  it("in one pass over dense pages the same clear moves rows off their pages (what the passes avoid)", () =>
    withoutAutovacuum(async () => {
      const dense = await insertClaims({ count: 3_000, receivedAt: daysAgo(8), payloadFiller: 2 });
      const pages = () =>
        prisma.$queryRaw<{ page: number }[]>`
        SELECT (ctid::text::point)[0]::int AS page FROM processed_events WHERE event_id LIKE ${dense + "%"} ORDER BY id`;
      const before = await pages();

      await runPurge({ trigger: "manual", now, pauseMs: 0, pacing: { payloadPasses: 1 } });

      const moved = (await pages()).filter((row, i) => row.page !== before[i]!.page);
      expect(moved.length).toBeGreaterThan(1_000);
    }));

  it("refuses a payload clear in no passes (it would keep every payload)", async () => {
    await expect(runPurge({ trigger: "manual", now, pacing: { payloadPasses: 0 } })).rejects.toThrow(
      "payloadPasses must be a whole number from 1 to 16",
    );
  });

  it("is idempotent: a second run finds nothing and says so", async () => {
    await insertClaims({ count: 7, receivedAt: daysAgo(30) });
    const first = await runPurge({ trigger: "cli", now, pauseMs: 0 });
    const second = await runPurge({ trigger: "cli", now, pauseMs: 0 });

    expect(first.claimsDeleted).toBe(7);
    expect(second).toMatchObject({
      status: "ran",
      claimsDeleted: 0,
      receiptsDeleted: 0,
      payloadsCleared: 0,
      batches: 0,
    });
    expect((await listPurgeRuns({ limit: 10 })).map((r) => r.id)).toEqual([second.id, first.id]);
  });

  it("keeps an unresolved quarantined claim past the window (a human has not looked at it yet), but not its payload", async () => {
    const waiting = await insertClaims({ count: 2, receivedAt: daysAgo(40), outcome: "quarantined" });
    const resolved = await insertClaims({ count: 2, receivedAt: daysAgo(40), outcome: "quarantined", resolved: true });
    // Inside the claims' window, past the payloads': its payload goes like any other.
    const recent = await insertClaims({ count: 2, receivedAt: daysAgo(8), outcome: "quarantined" });
    const fresh = await insertClaims({ count: 2, receivedAt: daysAgo(6), outcome: "quarantined" });

    const run = await runPurge({ trigger: "manual", now, pauseMs: 0 });

    expect(run.claimsDeleted).toBe(2);
    expect(run.payloadsCleared).toBe(4);
    expect(await claimsWithPrefix(waiting)).toEqual({ count: 2, withPayload: 0 });
    expect(await claimsWithPrefix(recent)).toEqual({ count: 2, withPayload: 0 });
    expect(await claimsWithPrefix(fresh)).toEqual({ count: 2, withPayload: 2 });
    expect(await claimsWithPrefix(resolved)).toEqual({ count: 0, withPayload: 0 });
    // Its receipts follow the window like every other receipt.
    expect(await receiptsWithPrefix(waiting)).toBe(0);
  });

  it("steps aside while another replica holds the advisory lock, and records that", async () => {
    const expired = await insertClaims({ count: 4, receivedAt: daysAgo(20) });
    const otherReplica = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await otherReplica.connect();
    try {
      await otherReplica.query("SELECT pg_advisory_lock($1)", [PURGE_LOCK_KEY]);

      const skipped = await runPurge({ trigger: "schedule", now, pauseMs: 0 });

      expect(skipped).toMatchObject({ status: "skipped_locked", claimsDeleted: 0, batches: 0, error: null });
      expect(await claimsWithPrefix(expired)).toMatchObject({ count: 4 });

      await otherReplica.query("SELECT pg_advisory_unlock($1)", [PURGE_LOCK_KEY]);
      const ran = await runPurge({ trigger: "schedule", now, pauseMs: 0 });
      expect(ran).toMatchObject({ status: "ran", claimsDeleted: 4 });
    } finally {
      await otherReplica.end();
    }
  });

  it("two replicas starting together: one purges, the other steps aside, nothing is deleted twice", async () => {
    await insertClaims({ count: 300, receivedAt: daysAgo(20) });

    const runs = await Promise.all([
      runPurge({ trigger: "schedule", now, batchSize: 10, pauseMs: 5 }),
      runPurge({ trigger: "schedule", now, batchSize: 10, pauseMs: 5 }),
    ]);

    const statuses = runs.map((r) => r.status).sort();
    expect(statuses).toEqual(["ran", "skipped_locked"]);
    expect(runs.reduce((sum, r) => sum + r.claimsDeleted, 0)).toBe(300);
    expect(await prisma.processedEvent.count()).toBe(0);
  });

  it("releases the lock when a run ends, so the next run can take it", async () => {
    await runPurge({ trigger: "manual", now, pauseMs: 0 });
    const probe = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await probe.connect();
    try {
      const { rows } = await probe.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
        PURGE_LOCK_KEY,
      ]);
      expect(rows[0]!.locked).toBe(true);
    } finally {
      await probe.end();
    }
  });

  it("refuses to purge with a stored window the environment's margin has made unsafe, and records why", async () => {
    const expired = await insertClaims({ count: 3, receivedAt: daysAgo(20) });
    // Valid when it was saved with a smaller margin; with RETENTION_MARGIN_HOURS=24, 48 h <= 28 h + 24 h.
    await prisma.setting.create({ data: { key: "retention", value: { retentionDays: 2, retryHorizonHours: 28 } } });

    const run = await runPurge({ trigger: "cron", now, pauseMs: 0 });

    expect(run.status).toBe("failed");
    expect(run.error).toBe(
      "refusing to purge: retention window 2 days (48 h) must be longer than the provider retry horizon 28 h + margin 24 h = 52 h, or a late retry would be applied twice",
    );
    expect(await claimsWithPrefix(expired)).toMatchObject({ count: 3 });
    expect((await listPurgeRuns({ limit: 1 }))[0]).toMatchObject({ status: "failed", trigger: "cron" });
  });

  it("stops starting batches when its time budget is spent; the next run continues", async () => {
    await insertClaims({ count: 5, receivedAt: daysAgo(20) });

    const cut = await runPurge({ trigger: "cron", now, timeBudgetMs: 0 });
    const next = await runPurge({ trigger: "cron", now, pauseMs: 0 });

    expect(cut).toMatchObject({ status: "ran", claimsDeleted: 0 });
    expect(next).toMatchObject({ status: "ran", claimsDeleted: 5, receiptsDeleted: 5 });
  });

  it("uses the stored retention window", async () => {
    const sixDays = await insertClaims({ count: 2, receivedAt: daysAgo(6) });
    await prisma.setting.create({
      data: { key: "retention", value: { retentionDays: 5, retryHorizonHours: 28, payloadRetentionDays: 2 } },
    });

    const run = await runPurge({ trigger: "manual", now, pauseMs: 0 });

    expect(run.claimsDeleted).toBe(2);
    expect(await claimsWithPrefix(sixDays)).toEqual({ count: 0, withPayload: 0 });
  });

  it("answers bad options with a clear error", async () => {
    const error = await runPurge({ trigger: "manual", batchSize: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).publicMessage).toBe("batchSize must be at least 1");
    const trigger = await runPurge({ trigger: "nightly" as "cli" }).catch((e: unknown) => e);
    expect((trigger as AppError).publicMessage).toBe("trigger must be cli, cron, schedule or manual");
    const limit = await listPurgeRuns({ limit: 0 }).catch((e: unknown) => e);
    expect((limit as AppError).publicMessage).toBe("limit must be at least 1");
  });
});
