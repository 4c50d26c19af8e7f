// .env.example must list every setting lib/env.ts reads, so a new setting cannot be left out.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const source = readFileSync("lib/env.ts", "utf8");
const example = readFileSync(".env.example", "utf8");

describe(".env.example", () => {
  it("lists every setting of lib/env.ts", () => {
    const settings = new Set([
      ...[...source.matchAll(/^\s{4}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!),
      ...[...source.matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!),
    ]);
    expect(settings.size).toBeGreaterThan(20);
    const listed = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!));
    expect([...settings].filter((name) => !listed.has(name))).toEqual([]);
  });
});
