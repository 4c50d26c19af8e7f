// docs/retention.md names every table the database holds, the job queue's own included, with
// what bounds it: a table the page does not name is one nobody has said will stop growing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";

const page = readFileSync(path.resolve(import.meta.dirname, "../../../docs/retention.md"), "utf8");

it("names every table of our schema and of graphile_worker's", async () => {
  const tables = await prisma.$queryRaw<{ name: string }[]>`
    SELECT CASE WHEN schemaname = 'public' THEN tablename ELSE schemaname || '.' || tablename END AS name
    FROM pg_tables WHERE schemaname IN ('public', 'graphile_worker') ORDER BY 1`;
  expect(tables.length).toBeGreaterThan(20);
  expect(tables.map((t) => t.name).filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
});
