// The fold's two-step watermark (lib/operations/rollups/fold-rollups.ts) may only move past ids handed out
// before its pending mark once every client transaction that started by then has ended: such a
// transaction can still commit a row with a lower id. It must wait for those, and fold as soon
// as they are gone. (It must not wait for autovacuum's workers, which also show an open
// transaction in pg_stat_activity: lib/core/db/writers-still-open.ts counts client backends
// only. There is no deterministic way to start an autovacuum worker from a test; the plan test,
// test/scale/page-plans.integration.test.ts, checks that its folds right after a bulk load did
// not wait.)
import pg from "pg";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { recordReceipt } from "@/lib/core/ingest/record-receipt";
import { foldRollups } from "@/lib/operations/rollups/fold-rollups";
import { resetDatabase } from "../../support/state";

const writer = new pg.Client({ connectionString: process.env.DATABASE_URL });
await writer.connect();

afterAll(async () => {
  await writer.end();
});

beforeEach(async () => {
  await resetDatabase();
});

const receipt = () =>
  recordReceipt({
    receivedAt: new Date(),
    webhookId: "evt_fold_waits",
    signatureVerdict: "invalid",
    status: 401,
    error: "no signature matches any configured secret",
    latencyMicros: 100,
    bodyBytes: 10,
  });

async function foldReceipts() {
  const [result] = await foldRollups({ sources: ["receipts"] });
  return result!;
}

const countedInRollup = async () => {
  const [row] = await prisma.$queryRaw<{ rows: bigint | null }[]>`SELECT sum(rows) AS rows FROM receipt_hourly_counts`;
  return Number(row!.rows ?? 0);
};

describe("the rollup fold's watermark", () => {
  it("waits while a client transaction older than its pending mark is open, and folds once it ends", async () => {
    await receipt();
    await writer.query("BEGIN");
    await writer.query("SELECT 1"); // the transaction is open from here on
    const marked = await foldReceipts(); // sets the pending mark after the writer began
    expect(marked.waiting).toBe(false);

    const held = await foldReceipts();
    expect(held.waiting).toBe(true);
    expect(held.foldedId).toBe(marked.foldedId);
    expect(await countedInRollup()).toBe(0);

    await writer.query("COMMIT");
    const released = await foldReceipts();
    expect(released.waiting).toBe(false);
    expect(released.foldedId).toBeGreaterThan(marked.foldedId);
    expect(await countedInRollup()).toBe(1);
  });

  it("does not wait for a client transaction that began after the pending mark", async () => {
    await receipt();
    const marked = await foldReceipts();
    await writer.query("BEGIN");
    await writer.query("SELECT 1");
    try {
      const folded = await foldReceipts();
      expect(folded.waiting).toBe(false);
      expect(folded.foldedId).toBeGreaterThan(marked.foldedId);
    } finally {
      await writer.query("COMMIT");
    }
  });
});
