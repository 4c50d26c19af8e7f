// bench/results holds one file per benchmark (its latest result, the file docs link) and the
// history of every run (history.ndjson): no second file per benchmark, no file no script writes.
// A run worth telling apart carries a label in the history (bench/support/results.ts).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const results = path.join(root, "bench", "results");
// CPU profiles of bench/profile-ingest.ts: git-ignored working files.
const IGNORED = new Set(["profiles"]);

/** The benchmarks that write a result: writeResult("<name>", …) in bench/, and the fault and failover runs' reports. */
function benchmarkNames(): string[] {
  const sources = [
    ...readdirSync(path.join(root, "bench")).map((file) => path.join("bench", file)),
    ...readdirSync(path.join(root, "bench", "support")).map((file) => path.join("bench", "support", file)),
    ...readdirSync(path.join(root, "faults")).map((file) => path.join("faults", file)),
  ].filter((file) => file.endsWith(".ts"));
  const names = sources.flatMap((file) => {
    const text = readFileSync(path.join(root, file), "utf8");
    return [
      ...[...text.matchAll(/writeResult\("([a-z0-9-]+)"/g)].map((match) => match[1]!),
      ...[...text.matchAll(/"bench\/results\/([a-z0-9-]+)\.json"/g)].map((match) => match[1]!),
    ];
  });
  return [...new Set(names)].sort();
}

describe("bench/results", () => {
  const names = benchmarkNames();

  it("holds one file per benchmark and the history, nothing else", () => {
    expect(names).toEqual(expect.arrayContaining(["bench", "dashboard-scale", "faults", "ingest", "purge-scale"]));
    const files = readdirSync(results).filter((file) => !IGNORED.has(file));
    const strays = files.filter((file) => file !== "history.ndjson" && !names.includes(file.replace(/\.json$/, "")));
    expect(strays).toEqual([]);
  });

  it("every line of the history names a benchmark that exists", () => {
    const lines = readFileSync(path.join(results, "history.ndjson"), "utf8").split("\n").filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    const unknown = lines
      .map((line) => (JSON.parse(line) as { bench?: string }).bench)
      .filter((bench) => bench === undefined || !names.includes(bench));
    expect(unknown).toEqual([]);
  });
});
