// Keyset pagination of the ledger: exact (no row lost or repeated, even with equal timestamps)
// and an index walk that stops after one page at any depth, so it stays fast at 1,000,000 rows.
// The plan shape is asserted here (deterministic); the render time at 1,000,000 rows is measured
// by `npm run bench`, not by a timed test.
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Actor } from "@/lib/core/auth/actor";
import { decodeCursor, encodeCursor } from "@/lib/views/listing/keyset-cursor";
import { ledgerCsvLines, ledgerCsvPageSql } from "@/lib/views/ledger/ledger-csv-lines";
import { parseLedgerFilters, type LedgerFilters } from "@/lib/views/ledger/ledger-filters";
import { ledgerPageSql, listLedger } from "@/lib/views/ledger/list-ledger";

const ROWS = 200_000;
const staff: Actor = { id: "u_support", email: "support@keyhook.test", name: null, role: "support", tenantId: null };
const districtAdmin: Actor = {
  id: "u_da",
  email: "da@d7.test",
  name: null,
  role: "district_admin",
  tenantId: "district-7",
};

beforeAll(async () => {
  // 200k claims over 50 districts and ~3 days; every 10th second holds several rows (timestamp ties).
  await prisma.$executeRawUnsafe(`
    INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, received_at, processed_at)
    SELECT 'district-' || (g % 50), 'evt_' || g, (ARRAY['key.created','key.rotated','key.revoked'])[1 + g % 3], 'key_' || g, g,
           (ARRAY['applied','applied','applied','stale','quarantined','ignored'])[1 + g % 6],
           timestamptz '2026-11-15 00:00:00+00' + ((g / 3) * interval '3630 milliseconds'), now()
    FROM generate_series(1, ${ROWS}) AS g`);
  await prisma.$executeRawUnsafe(`ANALYZE processed_events`);
}, 600_000);

async function planOf(actor: Actor, filters: LedgerFilters, cursor?: { at: Date; id: bigint }) {
  return planOfSql(ledgerPageSql({ actor, filters, cursor, limit: 51 }));
}

async function planOfSql(sql: Prisma.Sql) {
  const [row] = await prisma.$queryRaw<{ "QUERY PLAN": unknown }[]>(Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`);
  const plan = JSON.stringify(row!["QUERY PLAN"]);
  return {
    plan,
    rowsRead: [...plan.matchAll(/"Actual Rows":\s*(\d+)/g)].reduce((max, m) => Math.max(max, Number(m[1])), 0),
  };
}

describe("the ledger at 200,000 rows", () => {
  it("pages are index walks: no sort, a few dozen rows read, fast at any depth and with the common filters", async () => {
    const first = await listLedger({ actor: staff, filters: {} });
    expect(first.rows).toHaveLength(50);
    // Jump deep into the table: the cursor of the middle row.
    const [middle] = await prisma.$queryRaw<
      { id: bigint; received_at: Date }[]
    >`SELECT id, received_at FROM processed_events WHERE event_id = 'evt_100000'`;
    const deep = { at: middle!.received_at, id: middle!.id };

    const scenarios: [string, Actor, LedgerFilters, typeof deep | undefined][] = [
      ["first page", staff, {}, undefined],
      ["page at row 100,000", staff, {}, deep],
      ["one district (staff filter)", staff, { tenantId: "district-7" }, deep],
      ["a district admin's own ledger", districtAdmin, {}, deep],
      [
        "time range",
        staff,
        { from: new Date("2026-11-16T00:00:00Z"), to: new Date("2026-11-17T00:00:00Z") },
        undefined,
      ],
    ];
    for (const [name, actor, filters, cursor] of scenarios) {
      const { plan, rowsRead } = await planOf(actor, filters, cursor);
      expect(plan, name).not.toMatch(/"Node Type":\s*"Sort"/);
      expect(plan, name).not.toMatch(/"Node Type":\s*"Seq Scan"/);
      expect(rowsRead, name).toBeLessThanOrEqual(200);
      const page = await listLedger({ actor, filters, cursor });
      expect(page.rows.length, name).toBeGreaterThan(0);
    }
  });

  it("a CSV export page (PostgreSQL writes its lines) is an index walk of one page at any depth", async () => {
    const [middle] = await prisma.$queryRaw<
      { id: bigint; received_at: Date }[]
    >`SELECT id, received_at FROM processed_events WHERE event_id = 'evt_100000'`;
    const deep = { at: middle!.received_at, id: middle!.id };
    const scenarios: [string, Actor, LedgerFilters][] = [
      ["everything", staff, {}],
      ["one district (staff filter)", staff, { tenantId: "district-7" }],
      ["a district admin's own ledger", districtAdmin, {}],
      ["an outcome", staff, { outcome: "stale" }],
    ];
    for (const [name, actor, filters] of scenarios) {
      // The plan as JSON.stringify writes it (no space after the colon).
      const { plan } = await planOfSql(ledgerCsvPageSql({ actor, filters, cursor: deep, limit: 1000 }));
      const nodes = [...plan.matchAll(/"Node Type":"([^"]+)"/g)].map((m) => m[1]);
      const rowsRead = Math.max(...[...plan.matchAll(/"Actual Rows":(\d+)/g)].map((m) => Number(m[1])));
      expect(nodes, name).toContain("Index Scan");
      expect(nodes, name).not.toContain("Seq Scan");
      expect(nodes, name).not.toContain("Bitmap Heap Scan");
      expect(rowsRead, name).toBe(1000);
    }
  });

  it("an event id filter finds its few rows through the event id index (sorting only those)", async () => {
    const { plan, rowsRead } = await planOf(staff, { eventId: "evt_177777" });
    expect(plan).toMatch(/"Index Name":\s*"processed_events_event_id_idx"/);
    expect(plan).not.toMatch(/"Node Type":\s*"Seq Scan"/);
    expect(rowsRead).toBeLessThanOrEqual(5);
  });

  it("an outcome filter is an index walk too", async () => {
    const { plan } = await planOf(staff, { outcome: "quarantined" });
    expect(plan).not.toMatch(/"Node Type":\s*"Sort"/);
    const page = await listLedger({ actor: staff, filters: { outcome: "quarantined" } });
    expect(page.rows.length).toBeGreaterThan(0);
    expect(page.rows.every((r) => r.outcome === "quarantined")).toBe(true);
  });
});

describe("keyset pages", () => {
  it("walk the whole filtered set exactly once, in order, across equal timestamps", async () => {
    const filters = {
      tenantId: "district-3",
      from: new Date("2026-11-15T00:00:00Z"),
      to: new Date("2026-11-15T06:00:00Z"),
    };
    const expected = await prisma.processedEvent.findMany({
      where: { tenantId: "district-3", receivedAt: { gte: filters.from, lt: filters.to } },
      orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
      select: { id: true },
    });
    expect(expected.length).toBeGreaterThan(50);
    const seen: bigint[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await listLedger({ actor: staff, filters, cursor: decodeCursor(cursor), limit: 7 });
      seen.push(...page.rows.map((r) => r.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected.map((r) => r.id));
  });

  it("a tampered cursor starts from the top instead of failing", () => {
    expect(decodeCursor("not-a-cursor")).toBeUndefined();
    expect(decodeCursor(encodeCursor({ at: new Date("2026-11-15T00:00:00Z"), id: 42n }))).toEqual({
      at: new Date("2026-11-15T00:00:00Z"),
      id: 42n,
    });
  });

  it("bad filter input becomes form messages, not exceptions", () => {
    const { errors } = parseLedgerFilters({ outcome: "exploded", from: "yesterday", to: "2026-11-01T00:00" });
    expect(errors).toEqual([
      "Outcome must be one of applied, stale, quarantined, ignored.",
      "From is not a date and time (use YYYY-MM-DD HH:MM:SS, UTC).",
    ]);
  });

  it("the CSV export streams the filtered ledger in batches", async () => {
    let lines = 0;
    let chunks = 0;
    for await (const chunk of ledgerCsvLines({ actor: districtAdmin, filters: {} })) {
      chunks++;
      lines += chunk.split("\r\n").length - 1;
      expect(chunk).not.toMatch(/,district-8,/);
    }
    expect(lines).toBe(1 + ROWS / 50);
    expect(chunks).toBeGreaterThan(ROWS / 50 / 1000);
  });
});
