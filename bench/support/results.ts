// bench/results holds one file per benchmark with its latest result (<name>.json, the file docs
// link) and ONE history file for all of them (history.ndjson, a line per run), so figures can be
// compared over time without a directory of copies. A run worth telling apart (a baseline, an A/B
// arm, a bigger fill) carries BENCH_LABEL=<label> in its entry instead of a file of its own.
// test/architecture/bench-results.test.ts keeps the folder to that shape.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";

export function machine() {
  return {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model,
    node: process.version,
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

const HISTORY = "bench/results/history.ndjson";

export function writeResult(name: string, result: Record<string, unknown>): void {
  const label = process.env.BENCH_LABEL;
  const entry = {
    bench: name,
    ...(label ? { label } : {}),
    at: new Date().toISOString(),
    machine: machine(),
    ...result,
  };
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(`bench/results/${name}.json`, JSON.stringify(entry, null, 2) + "\n");
  appendFileSync(HISTORY, JSON.stringify(entry) + "\n");
  console.log(`written to bench/results/${name}.json (and a line in bench/results/history.ndjson)`);
}

/** The latest run of benchmark `name` labelled `label` in the history, or null. */
export function labelledResult<T>(name: string, label: string): T | null {
  if (!existsSync(HISTORY)) return null;
  const runs = readFileSync(HISTORY, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { bench?: string; label?: string })
    .filter((run) => run.bench === name && run.label === label);
  return (runs[runs.length - 1] as T | undefined) ?? null;
}

export const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
