// The final table and the kept results (bench/results/faults.json, a line in history.ndjson).
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import type { Figures } from "./check-history";
import type { FaultRecord } from "./nemesis";
import type { FaultRunOptions } from "./options";

export type RunSummary = {
  options: FaultRunOptions;
  figures: Figures;
  faults: { appKills: number; pgRestarts: number; heldResponses: number; records: FaultRecord[] };
  simulator: { duplicates: number; reordered: number; lostResponses: number };
  timings: { emitMs: number; drainMs: number; totalMs: number; meanBootMs: number };
  violations: string[];
};

export function formatTable(summary: RunSummary): string {
  const f = summary.figures;
  const mark = (value: number) => (value === 0 ? "ok" : "FAIL");
  const rows: [string, string | number, string][] = [
    ["sent", f.sent, ""],
    ["acknowledged", f.acknowledged, ""],
    [
      "applied",
      f.applied,
      `ledger ${Object.entries(f.ledgerOutcomes)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    ],
    ["lost", f.lost, mark(f.lost)],
    ["applied twice", f.appliedTwice, mark(f.appliedTwice)],
    [
      "final-state mismatches",
      f.finalStateMismatches,
      `${mark(f.finalStateMismatches)} (keys ${f.keyMismatches}, tenants with >1 active ${f.tenantsWithSeveralActiveKeys})`,
    ],
    ["never acknowledged", f.neverAcknowledged, mark(f.neverAcknowledged)],
    ["2xx without commit", f.answeredWithoutCommit, mark(f.answeredWithoutCommit)],
    ["claims without receipt", f.claimsWithoutReceipt, mark(f.claimsWithoutReceipt)],
  ];
  const d = f.deliveries;
  const c = f.committedButUnanswered;
  const s = summary.simulator;
  const t = summary.timings;
  return [
    ...rows.map(([name, value, note]) => `${name.padEnd(24)} ${String(value).padStart(7)}  ${note}`),
    "",
    `faults: ${summary.faults.appKills} app SIGKILLs, ${summary.faults.pgRestarts} PostgreSQL restarts, ${summary.faults.heldResponses} responses held past the timeout; ` +
      `simulator: ${s.duplicates} duplicates, ${s.reordered} reordered, ${s.lostResponses} lost responses`,
    `deliveries: ${d.total} (${d.succeeded} 2xx, ${d.answered503} 503, ${d.connectionErrors} connection errors, ${d.timeouts} timeouts, ${d.lostResponses} answers dropped by the simulator, ${d.otherFailures} other)`,
    `committed but the answer never arrived: ${c.total} (${c.afterTimeout} after a timeout, ${c.afterConnectionError} after a connection error/kill, ${c.after503} after a 503)`,
    `time: emission ${(t.emitMs / 1000).toFixed(1)} s, drain ${(t.drainMs / 1000).toFixed(1)} s, total ${(t.totalMs / 1000).toFixed(1)} s; mean app boot ${t.meanBootMs} ms`,
  ].join("\n");
}

export function writeResults(summary: RunSummary): string {
  return writeRunResults("faults", "bench/results/faults.json", summary);
}

/** The kept result of a harness run: `file`, and a line in bench/results/history.ndjson. */
export function writeRunResults(bench: string, file: string, summary: object): string {
  const at = new Date().toISOString();
  const result = { at, machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg() }, ...summary };
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(file, JSON.stringify(result, null, 2) + "\n");
  appendFileSync("bench/results/history.ndjson", JSON.stringify({ bench, ...result }) + "\n");
  return file;
}

/** The end of a run: its table, where its results went, and the verdict as the exit code. */
export function printVerdict(run: {
  table: string;
  file: string;
  violations: string[];
  examples: Figures["examples"];
  passed: string;
}): number {
  console.log(`\n${run.table}`);
  console.log(`written to ${run.file} and a line in bench/results/history.ndjson`);
  if (run.violations.length > 0) {
    console.log(`\nFAILED: ${run.violations.join("; ")}`);
    for (const [kind, ids] of Object.entries(run.examples))
      if (ids.length > 0) console.log(`  ${kind}: ${ids.join(", ")}`);
    return 1;
  }
  console.log(`\nPASSED: ${run.passed}`);
  return 0;
}
