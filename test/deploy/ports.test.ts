// The deploy tests run side by side (vitest.deploy.config.ts), each starting servers on
// DEPLOY_PORT plus its own offsets: two files with one offset would answer each other's requests.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

it("no two deploy test files start a server on the same DEPLOY_PORT offset", () => {
  const owners = new Map<number, string[]>();
  for (const file of readdirSync(import.meta.dirname).filter((name) => name.endsWith(".test.ts"))) {
    const text = readFileSync(path.join(import.meta.dirname, file), "utf8").replace(/^import [\s\S]*?;$/gm, "");
    const offsets = new Set<number>();
    for (const match of text.matchAll(/\bDEPLOY_PORT(?:\s*\+\s*(\d+))?\s*[,;)]/g)) offsets.add(Number(match[1] ?? 0));
    for (const offset of offsets) owners.set(offset, [...(owners.get(offset) ?? []), file]);
  }
  const shared = [...owners]
    .filter(([, files]) => files.length > 1)
    .map(([offset, files]) => `+${offset}: ${files.join(", ")}`);
  expect(owners.size).toBeGreaterThanOrEqual(6);
  expect(shared).toEqual([]);
});
