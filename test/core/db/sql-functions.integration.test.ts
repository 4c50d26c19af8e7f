// The migrated database runs exactly the plpgsql functions of prisma/sql/: a source changed
// without `npm run db:function -- <name>` (or a migration edited by hand) fails here.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  definitionIn,
  functionMigrationSql,
  latestMigratedDefinition,
  listFunctionSources,
  readFunctionSource,
} from "@/tooling/migrations/sql-functions";

const names = await listFunctionSources();
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
});
afterAll(() => client.end());

/** pg_get_functiondef of the one function `name` in public, or null. */
async function deployedDefinition(name: string): Promise<string | null> {
  const { rows } = await client.query<{ def: string }>(
    `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.proname = $1`,
    [name],
  );
  if (rows.length > 1) throw new Error(`${name} is overloaded: ${rows.length} functions of that name`);
  return rows[0]?.def ?? null;
}

describe("plpgsql functions: one source file each", () => {
  it("has the claim-and-apply function and the audit trigger function as sources", () => {
    expect(names).toEqual(expect.arrayContaining(["keyhook_apply_event", "keyhook_audit_log_is_append_only"]));
  });

  it.each(names)("the migrated database runs prisma/sql/%s.sql", async (name) => {
    const deployed = await deployedDefinition(name);
    expect(deployed, `${name} is not deployed: run npm run db:function -- ${name}`).not.toBeNull();
    // PostgreSQL's own rendering of the source, compared with its rendering of the deployed
    // function: whitespace in the body counts (it is stored verbatim), the header's does not.
    await client.query("BEGIN");
    try {
      await client.query(await readFunctionSource(name));
      const fromSource = await deployedDefinition(name);
      expect(deployed, `the database runs another ${name}: run npm run db:function -- ${name}`).toBe(fromSource);
    } finally {
      await client.query("ROLLBACK");
    }
  });

  it.each(names)("the last migration defining %s holds its source's text", async (name) => {
    const source = await readFunctionSource(name);
    expect(await latestMigratedDefinition(name)).toBe(definitionIn(source, name));
  });

  it("a generated migration deploys the source, and with --drop drops the old signature first", () => {
    const source = "-- why\nCREATE OR REPLACE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$\nSELECT a\n$$;\n";
    const sql = functionMigrationSql("f", source, { dropSignature: "int" });
    expect(definitionIn(sql, "f")).toBe(definitionIn(source, "f"));
    expect(sql.indexOf("DROP FUNCTION f(int);")).toBeLessThan(sql.indexOf("CREATE OR REPLACE FUNCTION f("));
    expect(definitionIn("CREATE FUNCTION f() RETURNS int AS $$\nSELECT 1\n$$;", "f")).toBe(
      "CREATE OR REPLACE FUNCTION f() RETURNS int AS $$\nSELECT 1\n$$;",
    );
  });
});
