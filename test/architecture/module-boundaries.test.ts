// The module boundaries, checked on the import graph of the sources (static and dynamic imports):
// UI components never reach the database client, the domain never reaches the tooling, lib/http
// knows no domain result, and the tests never reach the benchmarks (one test-support folder,
// test/support/, that bench/ imports).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const generated = path.join("lib", "generated") + path.sep;
const importPattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((entry) => {
    const relative = path.join(dir, entry);
    if (entry === "generated" || entry === "node_modules") return [];
    if (statSync(path.join(root, relative)).isDirectory()) return sourceFiles(relative);
    return /\.tsx?$/.test(entry) ? [relative] : [];
  });
}

/** The project file an import specifier names, or null for a package. */
function resolve(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.join(path.dirname(from), specifier);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (existsSync(path.join(root, candidate)) && statSync(path.join(root, candidate)).isFile())
      return path.normalize(candidate);
  }
  throw new Error(`${from}: cannot resolve ${specifier}`);
}

/** Every project module `entry` reaches, with the chain that reaches it. */
function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const match of readFileSync(path.join(root, file), "utf8").matchAll(importPattern)) {
      const target = resolve(file, match[1]!);
      // The generated Prisma client is a leaf: it imports no project module we check for.
      if (target === null || seen.has(target) || !/\.tsx?$/.test(target)) continue;
      seen.set(target, [...seen.get(file)!, target]);
      if (target.startsWith(generated)) continue;
      queue.push(target);
    }
  }
  return seen;
}

function violations(entries: string[], forbidden: (file: string) => boolean): string[] {
  return entries.flatMap((entry) =>
    [...reachable(entry)].filter(([file]) => forbidden(file)).map(([, chain]) => chain.join(" → ")),
  );
}

describe("module boundaries", () => {
  it("no UI component reaches the module that holds the database client (lib/db.ts)", () => {
    expect(violations(sourceFiles("components"), (file) => file === path.join("lib", "db.ts"))).toEqual([]);
  });

  it("the domain (lib/) and the app (app/) never reach the tooling (tooling/)", () => {
    const entries = [...sourceFiles("lib"), ...sourceFiles("app")];
    expect(violations(entries, (file) => file.startsWith(`tooling${path.sep}`))).toEqual([]);
  });

  it("tests never import the benchmarks: bench/ uses test/support/, not the reverse", () => {
    const entries = [...sourceFiles("test"), ...sourceFiles("e2e"), ...sourceFiles("faults")];
    expect(violations(entries, (file) => file.startsWith(`bench${path.sep}`))).toEqual([]);
  });

  it("lib/http maps AppError to HTTP and knows no domain result (each route maps its own)", () => {
    const http = sourceFiles(path.join("lib", "http"));
    const allowed = new Set([
      ...http,
      ...reachable(path.join("lib", "errors.ts")).keys(),
      ...reachable(path.join("lib", "log.ts")).keys(),
    ]);
    expect(violations(http, (file) => !allowed.has(file))).toEqual([]);
  });

  it("the check sees a violation: get-overview.ts reaches lib/db.ts", () => {
    expect([...reachable(path.join("lib", "overview", "get-overview.ts")).keys()]).toContain(path.join("lib", "db.ts"));
  });
});
