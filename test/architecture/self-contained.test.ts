// The repository explains itself: no file refers to a document outside it (the design lives in
// docs/). The patterns are built from parts so this file does not match itself.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const SKIP = new Set([
  "node_modules",
  ".next",
  ".data",
  ".git",
  "generated",
  "results",
  "artifacts",
  "test-results",
  "playwright-report",
]);
const outside = [new RegExp(["\\.\\.", "shared", ""].join("/")), new RegExp(["DESIGN", "md"].join("\\."))];

function textFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((entry) => {
    const relative = path.join(dir, entry);
    if (SKIP.has(entry) || entry === "package-lock.json") return [];
    if (statSync(path.join(root, relative)).isDirectory()) return textFiles(relative);
    return /\.(ts|tsx|mjs|js|json|md|sql|prisma|css|toml|yml|yaml)$|^(run|\.env\.example|\.editorconfig)$/.test(entry)
      ? [relative]
      : [];
  });
}

describe("a self-contained repository", () => {
  it("no file cites a path outside the repository", () => {
    const files = textFiles(".");
    expect(files).toContain(path.join("docs", "design.md"));
    const citing = files.filter((file) =>
      outside.some((pattern) => pattern.test(readFileSync(path.join(root, file), "utf8"))),
    );
    expect(citing).toEqual([]);
  });
});
