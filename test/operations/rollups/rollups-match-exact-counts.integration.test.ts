// Property: whatever mix of events, duplicates, replays, rejected deliveries, purges and rollup
// folds happened, in whatever order, the counts the dashboard reads (hourly rollups + the live
// tail, lib/operations/rollups) equal an exact count(*) of the tables, for every range the pages ask for.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { applyKeyEvent } from "@/lib/core/ingest/apply-key-event";
import { recordReceipt } from "@/lib/core/ingest/record-receipt";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { foldRollups } from "@/lib/operations/rollups/fold-rollups";
import { countRollup, countRollups, totalRows, type RollupCount } from "@/lib/operations/rollups/rollup-counts";
import { ROLLUP_SOURCES, type RollupSource } from "@/lib/operations/rollups/rollup-sources";
import { resetDatabase } from "../../support/state";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const NOW = new Date("2026-12-01T12:34:56.789Z");

type Op =
  | { kind: "event"; tenant: number; ageMinutes: number; type: "key.created" | "key.rotated" | "key.revoked" }
  | { kind: "duplicate"; pick: number; ageMinutes: number }
  | { kind: "replay"; pick: number }
  | { kind: "rejected"; ageMinutes: number; status: 400 | 401 | 503 }
  | { kind: "fold" }
  | { kind: "purge"; advanceHours: number; batchSize: number };

const age = fc.integer({ min: 0, max: 20 * 24 * 60 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("event" as const),
      tenant: fc.integer({ min: 0, max: 3 }),
      ageMinutes: age,
      type: fc.constantFrom("key.created" as const, "key.rotated" as const, "key.revoked" as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("duplicate" as const), pick: fc.nat(), ageMinutes: age }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("replay" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("rejected" as const),
      ageMinutes: age,
      status: fc.constantFrom(400 as const, 401 as const, 503 as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("fold" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("purge" as const),
      advanceHours: fc.integer({ min: 0, max: 72 }),
      batchSize: fc.integer({ min: 1, max: 7 }),
    }),
  },
);

type Sent = {
  id: string;
  tenantId: string;
  type: string;
  keyId: string;
  previousKeyId: string | null;
  sequence: number;
  body: string;
};

async function run(ops: Op[]): Promise<void> {
  const sent: Sent[] = [];
  const sequences = [0, 0, 0, 0];
  let purgeNow = NOW;
  for (const [index, step] of ops.entries()) {
    if (step.kind === "event") {
      const sequence = ++sequences[step.tenant]!;
      // A rotation names the key it replaces; a district's first event can only create one.
      const type = sequence === 1 ? "key.created" : step.type;
      const previousKeyId = type === "key.rotated" ? `key_p${step.tenant}_${sequence - 1}` : null;
      const keyId = type === "key.revoked" ? `key_p${step.tenant}_${sequence - 1}` : `key_p${step.tenant}_${sequence}`;
      const event: Sent = {
        id: `evt_p${index}`,
        tenantId: `district-p${step.tenant}`,
        type,
        keyId,
        previousKeyId,
        sequence,
        body: "",
      };
      event.body = JSON.stringify({
        id: event.id,
        type,
        tenant_id: event.tenantId,
        key_id: keyId,
        previous_key_id: previousKeyId,
        sequence,
      });
      sent.push(event);
      await apply(event, new Date(NOW.getTime() - step.ageMinutes * 60_000), "provider");
    } else if ((step.kind === "duplicate" || step.kind === "replay") && sent.length > 0) {
      const event = sent[step.pick % sent.length]!;
      await apply(
        event,
        step.kind === "duplicate" ? new Date(NOW.getTime() - step.ageMinutes * 60_000) : NOW,
        step.kind === "replay" ? "replay" : "provider",
      );
    } else if (step.kind === "rejected") {
      await recordReceipt({
        receivedAt: new Date(NOW.getTime() - step.ageMinutes * 60_000),
        webhookId: `evt_r${index}`,
        signatureVerdict: step.status === 401 ? "invalid" : "valid",
        status: step.status,
        error: "rejected",
        latencyMicros: 1,
        bodyBytes: 10,
      });
    } else if (step.kind === "fold") {
      await foldRollups();
    } else if (step.kind === "purge") {
      purgeNow = new Date(purgeNow.getTime() + step.advanceHours * HOUR_MS);
      await runPurge({ trigger: "manual", now: purgeNow, pauseMs: 0, batchSize: step.batchSize });
    }
  }
  await expectRollupsExact(purgeNow);
}

/** The last two steps are folds: the watermarks must have reached every row (no open transaction held them back). */
async function expectFoldedToTheEnd() {
  const marks = await prisma.$queryRaw<{ source: string; behind: boolean }[]>`
    SELECT source, folded_id < (SELECT coalesce(max(id), 0) FROM processed_events) AND source = 'processed_events'
                OR folded_id < (SELECT coalesce(max(id), 0) FROM receipts) AND source = 'receipts' AS behind
    FROM rollup_watermarks`;
  expect(marks.filter((m) => m.behind)).toEqual([]);
}

async function apply(event: Sent, receivedAt: Date, source: "provider" | "replay") {
  await applyKeyEvent({
    event: {
      id: event.id,
      type: event.type as "key.created",
      tenantId: event.tenantId,
      keyId: event.keyId,
      previousKeyId: event.previousKeyId,
      sequence: event.sequence,
      occurredAt: receivedAt,
      prefix: "ik_live_p",
      scopes: ["rosters:read"],
    },
    payloadJson: event.body,
    receivedAt,
    receipt: { webhookId: event.id, bodyBytes: event.body.length, handlerMicros: 1, source },
  });
}

async function exact(source: RollupSource, from: Date | null, to: Date | null, byDay: boolean): Promise<RollupCount[]> {
  const { keyOf, okOf } = ROLLUP_SOURCES[source];
  const rows = await prisma.$queryRawUnsafe<{ day: string | null; key: string; rows: bigint; ok_rows: bigint }[]>(
    `SELECT ${byDay ? "to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')" : "NULL::text"} AS day, ${keyOf} AS key,
            count(*)::bigint AS rows, sum(${okOf})::bigint AS ok_rows
     FROM ${source} WHERE ($1::timestamptz IS NULL OR received_at >= $1::timestamptz) AND ($2::timestamptz IS NULL OR received_at < $2::timestamptz)
     GROUP BY 1, 2 ORDER BY 1, 2`,
    from,
    to,
  );
  return rows.map((r) => ({ day: r.day, key: r.key, rows: Number(r.rows), okRows: Number(r.ok_rows) }));
}

async function expectRollupsExact(purgeNow: Date) {
  const today = new Date(Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth(), NOW.getUTCDate()));
  const cutoff = new Date(purgeNow.getTime() - 14 * DAY_MS);
  const ranges: [string, Date | null, Date | null, boolean][] = [
    ["everything", null, null, false],
    ["today on", today, null, false],
    ["14 days by day", new Date(today.getTime() - 13 * DAY_MS), null, true],
    ["before the cutoff", null, cutoff, false],
    ["the 24 h after the cutoff", cutoff, new Date(cutoff.getTime() + DAY_MS), false],
    ["inside one hour", new Date(NOW.getTime() - 50 * 60_000), new Date(NOW.getTime() - 20 * 60_000), false],
  ];
  for (const source of ["processed_events", "receipts"] as const) {
    for (const [name, from, to, byDay] of ranges) {
      expect(await countRollup({ source, from, to, byDay }), `${source}: ${name}`).toEqual(
        await exact(source, from, to, byDay),
      );
    }
  }
  // Asked together (one snapshot, one statement) and as totals only (index-only partial hours):
  // the same figures.
  const requests = (["processed_events", "receipts"] as const).flatMap((source) =>
    ranges.flatMap(([, from, to, byDay]) => [
      { source, from, to, byDay },
      { source, from, to, byDay, totalOnly: true },
    ]),
  );
  const together = await countRollups(requests);
  for (const [index, request] of requests.entries()) {
    const expected = await exact(request.source, request.from, request.to, request.byDay);
    if (request.totalOnly && !request.byDay) {
      expect(totalRows(together[index]!), `${request.source}: total ${index}`).toBe(totalRows(expected));
    } else if (!request.totalOnly) {
      expect(together[index], `${request.source}: together ${index}`).toEqual(expected);
    } else {
      const perDay = new Map<string | null, number>();
      for (const row of expected) perDay.set(row.day, (perDay.get(row.day) ?? 0) + row.rows);
      expect(
        together[index]!.map((row) => [row.day, row.rows]),
        `${request.source}: total by day ${index}`,
      ).toEqual([...perDay]);
    }
  }
}

afterAll(resetDatabase);

describe("dashboard rollups", () => {
  it("equal an exact count after any mix of events, duplicates, replays, rejections, purges and folds", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        await resetDatabase();
        // Always end with folds, a purge of folded rows and folds again, so every run also checks
        // the folded state and the purge's subtraction, whatever the random part did.
        await run([
          ...ops,
          { kind: "fold" },
          { kind: "fold" },
          { kind: "purge", advanceHours: 24, batchSize: 3 },
          { kind: "fold" },
          { kind: "fold" },
        ]);
        await expectFoldedToTheEnd();
      }),
      { numRuns: 25 },
    );
  }, 240_000);
});
