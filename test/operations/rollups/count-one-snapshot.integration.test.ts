// A count reads the fold's watermark, then the hourly counts plus the rows past that watermark: a
// fold that commits between the two reads must not be counted twice (its rows in the hourly
// counts AND in the tail past the old watermark). Both reads share one REPEATABLE READ snapshot
// (lib/operations/rollups/rollup-counts.ts). The fold is made to commit exactly between them: the count's
// second statement waits on a lock the "fold" holds, and the fold commits while it waits.
import pg from "pg";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { countRollup, totalRows } from "@/lib/operations/rollups/rollup-counts";
import { waitUntil } from "../../support/child-process";
import { resetDatabase } from "../../support/state";

const HOUR_MS = 3_600_000;
const fold = new pg.Client({ connectionString: process.env.DATABASE_URL });
await fold.connect();
afterAll(() => fold.end());
beforeEach(resetDatabase);

describe("a rollup count and a fold committing in the middle of it", () => {
  it("counts every claim once", async () => {
    const hour = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 2 * HOUR_MS);
    for (let i = 0; i < 5; i++) {
      await prisma.processedEvent.create({
        data: {
          tenantId: "district-snap",
          eventId: `evt_snap_${i}`,
          type: "key.created",
          outcome: "applied",
          receivedAt: hour,
        },
      });
    }
    const range = {
      source: "processed_events" as const,
      from: new Date(hour.getTime() - HOUR_MS),
      to: new Date(hour.getTime() + 2 * HOUR_MS),
      totalOnly: true,
    };
    expect(totalRows(await countRollup(range))).toBe(5);

    await fold.query("BEGIN");
    await fold.query("LOCK TABLE claim_hourly_counts IN ACCESS EXCLUSIVE MODE");
    const counting = countRollup(range);
    // The count has read the watermark (nothing folded) and now waits for the hourly counts.
    await waitUntil(async () => {
      const { rows } = await fold.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_locks WHERE relation = 'claim_hourly_counts'::regclass AND NOT granted`,
      );
      return rows[0]!.waiting > 0;
    });
    // The fold: the five claims into their hour, the watermark past them, committed.
    await fold.query(`INSERT INTO claim_hourly_counts (hour, outcome, rows) VALUES ($1, 'applied', 5)`, [hour]);
    await fold.query(
      `UPDATE rollup_watermarks SET folded_id = (SELECT max(id) FROM processed_events) WHERE source = 'processed_events'`,
    );
    await fold.query("COMMIT");

    expect(totalRows(await counting)).toBe(5);
    expect(totalRows(await countRollup(range))).toBe(5);
  });
});
