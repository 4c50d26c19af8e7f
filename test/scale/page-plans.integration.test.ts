// Plan shapes of every dashboard page's queries on a realistic fill (200,000 claims, 200,000
// receipts, 20,000 districts, ANALYZEd, rollups folded): every statement the pages' services
// issue is captured from Prisma's query events and EXPLAINed with its own parameters; none may
// read one of the big tables with a sequential scan. A change that turns an index walk into a
// scan fails here; the time at 10,000,000 rows is measured by `npm run bench:dashboard`.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { foldRollups } from "@/lib/operations/rollups/fold-rollups";
import { fillScale } from "../support/fill-scale";
import { pageQueries } from "../support/page-queries";

const SCALE = { claims: 200_000, receipts: 200_000, districts: 20_000, auditRows: 50_000 };
const BIG_TABLES = ["processed_events", "receipts", "tenants", "api_keys", "audit_log"];

const captured: { query: string; params: unknown[] }[] = [];
let logged: PrismaClient;
let raw: pg.Client;

beforeAll(async () => {
  raw = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await raw.connect();
  await fillScale(
    (sql, params) => raw.query(sql, params as unknown[]),
    SCALE,
    () => undefined,
  );
  await foldRollups();
  // The second fold moves the watermark past the fill (the first only sets its pending mark). If
  // it waited, the pages would count the whole fill live and a sequential scan would be right.
  expect((await foldRollups()).filter((fold) => fold.waiting)).toEqual([]);
  logged = new PrismaClient({
    adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL! }),
    log: [{ emit: "event", level: "query" }],
  });
  // The client's generic options type does not carry the log setting through; the event is documented.
  const events = logged as unknown as {
    $on: (name: "query", listener: (event: { query: string; params: string }) => void) => void;
  };
  events.$on("query", (event) => {
    captured.push({ query: event.query, params: JSON.parse(event.params) as unknown[] });
  });
}, 600_000);

afterAll(async () => {
  await logged?.$disconnect();
  await raw?.end();
});

function seqScansOnBigTables(plan: unknown): string[] {
  const found: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    if (node["Node Type"] === "Seq Scan" && BIG_TABLES.includes(String(node["Relation Name"])))
      found.push(String(node["Relation Name"]));
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(plan as Record<string, unknown>);
  return found;
}

describe(`every dashboard page at ${SCALE.claims.toLocaleString("en")} claims and receipts, ${SCALE.districts.toLocaleString("en")} districts`, () => {
  it("reads the big tables through indexes only", async () => {
    const [middle] = await prisma.$queryRaw<
      { id: bigint }[]
    >`SELECT id FROM processed_events WHERE event_id = 'evt_fill_100001'`;
    const problems: string[] = [];
    let statements = 0;
    for (const { page, run } of pageQueries({
      claims: SCALE.claims,
      districts: SCALE.districts,
      ledgerId: String(middle!.id),
    })) {
      captured.length = 0;
      await run(logged);
      const queries = captured.splice(0).filter((q) => !/^\s*(BEGIN|COMMIT|ROLLBACK|SET|DEALLOCATE)/i.test(q.query));
      expect(queries.length, `${page} issued no query`).toBeGreaterThan(0);
      for (const { query, params } of queries) {
        statements++;
        const { rows } = await raw.query<{ "QUERY PLAN": { Plan: unknown }[] }>(
          `EXPLAIN (FORMAT JSON) ${query}`,
          params,
        );
        const scans = seqScansOnBigTables(rows[0]!["QUERY PLAN"][0]!.Plan);
        if (scans.length)
          problems.push(`${page}: Seq Scan on ${scans.join(", ")} in\n    ${query.replace(/\s+/g, " ").slice(0, 400)}`);
      }
    }
    expect(statements).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  }, 300_000);
});
