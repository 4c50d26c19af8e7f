// The module boundaries, checked on the import graph of the sources (static and dynamic imports):
// lib/ is three rings that import only inward (views → operations → core), no two of its areas
// import each other (no cycle of areas at all), lib/ reaches nothing outside itself (no framework,
// no HTTP edge, no tooling), UI components never reach the database client, and the tests never
// reach the benchmarks (one test-support folder, test/support/, that bench/ imports).
// docs/decisions/0029-lib-in-rings.md says why.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const generated = path.join("lib", "generated") + path.sep;
const importPattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;
const RINGS = ["core", "operations", "views"] as const;
const DB_CLIENT = path.join("lib", "core", "db", "client.ts");

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
  if (path.normalize(base).startsWith(generated)) return path.normalize(base);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (existsSync(path.join(root, candidate)) && statSync(path.join(root, candidate)).isFile())
      return path.normalize(candidate);
  }
  throw new Error(`${from}: cannot resolve ${specifier}`);
}

/** The project files a file imports directly. */
function importsOf(file: string): string[] {
  return [...readFileSync(path.join(root, file), "utf8").matchAll(importPattern)]
    .map((match) => resolve(file, match[1]!))
    .filter((target): target is string => target !== null);
}

/** Every project module `entry` reaches, with the chain that reaches it. */
function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const target of importsOf(file)) {
      // The generated Prisma client is a leaf: it imports no project module we check for.
      if (seen.has(target) || !/\.tsx?$/.test(target)) continue;
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

type Edge = { from: string; to: string };

/** lib/<ring>/<area>: a folder, or a file standing at the ring's top. */
function areaOf(file: string): string {
  const parts = file.split(path.sep);
  return parts.slice(0, 3).join("/");
}

function ringOf(file: string): number {
  return RINGS.indexOf(file.split(path.sep)[1] as (typeof RINGS)[number]);
}

/** Imports between files of lib/ (the generated client left out). */
function libEdges(): Edge[] {
  return sourceFiles("lib").flatMap((from) =>
    importsOf(from)
      .filter((to) => to.startsWith(`lib${path.sep}`) && !to.startsWith(generated))
      .map((to) => ({ from, to })),
  );
}

/** An import that runs outward, from an inner ring to an outer one. */
export function outwardImports(edges: Edge[]): string[] {
  return edges.filter(({ from, to }) => ringOf(to) > ringOf(from)).map(({ from, to }) => `${from} → ${to}`);
}

/** The cycles of the area graph (its strongly connected components of more than one area). */
export function areaCycles(edges: Edge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const [a, b] = [areaOf(from), areaOf(to)];
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    if (a !== b) graph.get(a)!.add(b);
  }
  // Tarjan's algorithm.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)!) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return components;
}

describe("lib/ in rings", () => {
  it("lib/ holds the three rings and nothing else (the generated client aside)", () => {
    const entries = readdirSync(path.join(root, "lib")).filter((entry) => entry !== "generated");
    expect(entries.sort()).toEqual([...RINGS].sort());
  });

  it("every import runs inward: views → operations → core, never back", () => {
    expect(outwardImports(libEdges())).toEqual([]);
  });

  it("no two areas of lib/ import each other, directly or round a longer loop", () => {
    expect(areaCycles(libEdges())).toEqual([]);
  });

  it("lib/ reaches nothing outside itself: not the app, the HTTP edge, the server or the tooling", () => {
    expect(violations(sourceFiles("lib"), (file) => !file.startsWith(`lib${path.sep}`))).toEqual([]);
  });

  it("the checks see a violation: an outward import and a loop of areas", () => {
    const edge = (from: string, to: string) => ({
      from: path.join(...from.split("/")),
      to: path.join(...to.split("/")),
    });
    expect(outwardImports([edge("lib/core/keys/a.ts", "lib/views/ledger/b.ts")])).toHaveLength(1);
    expect(
      areaCycles([
        edge("lib/operations/alerts/a.ts", "lib/operations/drift/b.ts"),
        edge("lib/operations/drift/b.ts", "lib/operations/worker/c.ts"),
        edge("lib/operations/worker/c.ts", "lib/operations/alerts/d.ts"),
      ]),
    ).toEqual([["lib/operations/alerts", "lib/operations/drift", "lib/operations/worker"]]);
  });
});

describe("module boundaries", () => {
  it("no UI component reaches the module that holds the database client", () => {
    expect(violations(sourceFiles("components"), (file) => file === DB_CLIENT)).toEqual([]);
  });

  it("the domain (lib/), the app (app/) and the edge (http/) never reach the tooling (tooling/)", () => {
    const entries = [...sourceFiles("lib"), ...sourceFiles("app"), ...sourceFiles("http")];
    expect(violations(entries, (file) => file.startsWith(`tooling${path.sep}`))).toEqual([]);
  });

  it("tests never import the benchmarks: bench/ uses test/support/, not the reverse", () => {
    const entries = [...sourceFiles("test"), ...sourceFiles("e2e"), ...sourceFiles("faults")];
    expect(violations(entries, (file) => file.startsWith(`bench${path.sep}`))).toEqual([]);
  });

  it("the check sees a violation: get-overview.ts reaches the database client", () => {
    expect([...reachable(path.join("lib", "views", "overview", "get-overview.ts")).keys()]).toContain(DB_CLIENT);
  });
});
