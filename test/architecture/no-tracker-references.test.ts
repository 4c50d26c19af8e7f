// Comments say why in words the repository explains: a tracker's issue number resolves to
// nothing inside it. Every comment of the code (TypeScript, SQL sources, shell) is checked; merged
// migrations are left as they were written. The patterns are built from parts so this file does
// not match itself.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const CODE_DIRS = [
  "lib",
  "http",
  "app",
  "components",
  "server",
  "scripts",
  "simulator",
  "tooling",
  "bench",
  "test",
  "e2e",
  "faults",
  path.join("prisma", "sql"),
];
const SKIP = new Set(["node_modules", "generated", "results", "artifacts", "test-results"]);

function codeFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((entry) => {
    const relative = path.join(dir, entry);
    if (SKIP.has(entry)) return [];
    if (statSync(path.join(root, relative)).isDirectory()) return codeFiles(relative);
    return /\.(ts|tsx|mts|mjs|js|sql|sh)$/.test(entry) ? [relative] : [];
  });
}

const rootFiles = () => readdirSync(root).filter((entry) => /\.(ts|mjs)$/.test(entry) && !entry.endsWith(".d.ts"));

/** The comments of a source text, one string per line comment or block. */
function commentsOf(file: string, text: string): string[] {
  if (file.endsWith(".sql")) return [...text.matchAll(/--(.*)$/gm)].map((m) => m[1]!);
  if (file.endsWith(".sh")) return [...text.matchAll(/(?:^|\s)#(?!!)(.*)$/gm)].map((m) => m[1]!);
  // `//` after a colon is a URL's, not a comment.
  return [...text.matchAll(/(?<![:"'`\\])\/\/(.*)$|\/\*([\s\S]*?)\*\//gm)].map((m) => m[1] ?? m[2]!);
}

const hash = String.fromCharCode(35);
const trackerReferences = [
  new RegExp(["\\biss", "ues?[\\s", hash, "-]*\\d+"].join(""), "i"),
  // A number of one to five digits: a six-digit colour (#059669) is not a reference.
  new RegExp(["(?:^|[\\s(\\[,;])", hash, "\\d{1,5}\\b"].join("")),
  new RegExp(["\\b(?:P", "R|pull request|tick", "et)[\\s", hash, "]*\\d+"].join(""), "i"),
];

function trackerReferencesIn(file: string, text: string): string[] {
  return commentsOf(file, text)
    .filter((comment) => trackerReferences.some((pattern) => pattern.test(comment)))
    .map((comment) => `${file}: ${comment.trim().slice(0, 120)}`);
}

describe("no tracker issue numbers in code comments", () => {
  it("no comment cites an issue by number", () => {
    const files = [...CODE_DIRS.flatMap(codeFiles), ...rootFiles()];
    expect(files).toContain(path.join("lib", "core", "config", "env.ts"));
    expect(files).toContain(path.join("prisma", "sql", "keyhook_apply_event.sql"));
    const found = files.flatMap((file) => trackerReferencesIn(file, readFileSync(path.join(root, file), "utf8")));
    expect(found).toEqual([]);
  });

  it("the check sees each form of reference, in each kind of comment, and nothing else", () => {
    const issue = ["iss", "ue"].join("");
    expect(trackerReferencesIn("a.ts", `const x = 1; // sized for thousands (${issue} 15)`)).toHaveLength(1);
    expect(trackerReferencesIn("a.ts", `/**\n * since ${issue}-9, pooled\n */`)).toHaveLength(1);
    expect(trackerReferencesIn("a.ts", `// see ${hash}15 for why`)).toHaveLength(1);
    expect(trackerReferencesIn("a.sql", `SELECT 1; -- ${issue} ${hash}12: gaps`)).toHaveLength(1);
    expect(trackerReferencesIn("a.sh", `set -e # ${["P", "R"].join("")} 7`)).toHaveLength(1);
    expect(trackerReferencesIn("a.ts", `// an ${issue} re-sent under a new id; colour ${hash}059669`)).toEqual([]);
    expect(trackerReferencesIn("a.ts", `const url = "http://127.0.0.1:4010"; const s = "${issue} 15";`)).toEqual([]);
  });
});
