// bench/results holds one file per benchmark with its latest result (<name>.json) and ONE
// history file for all of them (history.ndjson, a line per run), so figures can be compared over
// time without a directory of timestamped copies.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";

export function machine() {
  return {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model,
    node: process.version,
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function writeResult(name: string, result: Record<string, unknown>): void {
  const entry = { bench: name, at: new Date().toISOString(), machine: machine(), ...result };
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(`bench/results/${name}.json`, JSON.stringify(entry, null, 2) + "\n");
  appendFileSync("bench/results/history.ndjson", JSON.stringify(entry) + "\n");
  console.log(`written to bench/results/${name}.json (and a line in bench/results/history.ndjson)`);
}

export const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
