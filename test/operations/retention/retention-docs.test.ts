// docs/retention.md and the code agree on which tables grow and which settings bound them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GROWING_TABLES } from "@/lib/operations/retention/bounded-tables";
import { HISTORY_PURGES } from "@/lib/operations/retention/history-purges";

const page = readFileSync(path.resolve(import.meta.dirname, "../../../docs/retention.md"), "utf8");
const settingsTable = page.slice(page.indexOf("## Settings"));

describe("docs/retention.md", () => {
  it("names every table that grows, and every table the purge deletes from", () => {
    const tables = [...GROWING_TABLES.map((t) => t.table), ...Object.values(HISTORY_PURGES).map((p) => p.table)];
    expect(tables.filter((table) => !page.includes(`\`${table}\``))).toEqual([]);
  });

  it("documents every window setting with its default", () => {
    const settings = [...new Set(Object.values(HISTORY_PURGES).map((p) => p.window)), "SIGN_IN_FAILURE_RETENTION_DAYS"];
    expect(settings.filter((name) => !new RegExp(`\\| \`${name}\` +\\| \\d+ `).test(settingsTable))).toEqual([]);
  });
});
