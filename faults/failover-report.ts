// The table `npm run test:failover` prints, and the kept results (bench/results/failover.json,
// a line in bench/results/history.ndjson).
import type { Figures } from "./check-history";
import type { DashboardFigures } from "./dashboard-watch";
import type { FailoverRecord } from "./failover-nemesis";
import type { FailoverRunOptions } from "./failover-options";
import { writeRunResults } from "./report";

export type RecoveredFailover = FailoverRecord & {
  /** The first 2xx the simulator got after the kill (epoch ms), and its distance to the promotion and to the kill. */
  firstOkAt: number | null;
  promotedToOkMs: number | null;
  killedToOkMs: number | null;
};

export type FailoverSummary = {
  options: FailoverRunOptions;
  setupMs: number;
  /** Hooks at the simulator: one, or every event is delivered more than once. */
  hooks: number;
  figures: Figures;
  failovers: RecoveredFailover[];
  otherServerErrors: Record<string, number>;
  dashboard: DashboardFigures;
  worker: { rollupsCaughtUp: boolean; queueRestarts: number; workerExits: number };
  control: {
    sent: number;
    acknowledged: number;
    lost: number;
    lostExamples: string[];
    failover: RecoveredFailover | null;
  } | null;
  totalMs: number;
  violations: string[];
};

const seconds = (ms: number | null) => (ms === null ? "—" : `${(ms / 1000).toFixed(1)} s`);

export function formatFailoverReport(summary: FailoverSummary): string {
  const f = summary.figures;
  const mark = (value: number) => (value === 0 ? "ok" : "FAIL");
  const d = f.deliveries;
  const lines = [
    "synchronous replication (the documented setup)",
    `  sent                   ${String(f.sent).padStart(7)}`,
    `  acknowledged (2xx)     ${String(f.acknowledged).padStart(7)}`,
    `  lost                   ${String(f.lost).padStart(7)}  ${mark(f.lost)}`,
    `  applied twice          ${String(f.appliedTwice).padStart(7)}  ${mark(f.appliedTwice)}`,
    `  >1 active key/tenant   ${String(f.tenantsWithSeveralActiveKeys).padStart(7)}  ${mark(f.tenantsWithSeveralActiveKeys)}`,
    `  final-state mismatches ${String(f.finalStateMismatches).padStart(7)}  ${mark(f.finalStateMismatches)}`,
    `  never acknowledged     ${String(f.neverAcknowledged).padStart(7)}  ${mark(f.neverAcknowledged)}`,
    `  2xx without commit     ${String(f.answeredWithoutCommit).padStart(7)}  ${mark(f.answeredWithoutCommit)}`,
    `  503s (Retry-After)     ${String(d.answered503).padStart(7)}`,
    `  other 5xx              ${String(Object.values(summary.otherServerErrors).reduce((a, b) => a + b, 0)).padStart(7)}`,
    `  deliveries: ${d.total} (${d.succeeded} 2xx, ${d.answered503} 503, ${d.connectionErrors} connection errors, ${d.timeouts} timeouts)`,
    "",
    "  failover  kind   standby behind  kill→promoted  promoted→first 2xx  kill→first 2xx  kill→healthy",
    ...summary.failovers.map(
      (r, i) =>
        `  ${String(i + 1).padStart(8)}  ${r.kind.padEnd(5)}  ${(r.standbyBehindBytes === null ? "—" : `${Math.round(r.standbyBehindBytes / 1024)} KiB`).padStart(14)}` +
        `  ${seconds(r.promotedAt === null ? null : r.promotedAt - r.killedAt).padStart(13)}  ${seconds(r.promotedToOkMs).padStart(18)}` +
        `  ${seconds(r.killedToOkMs).padStart(14)}  ${seconds(r.healthyAt === null ? null : r.healthyAt - r.killedAt).padStart(12)}`,
    ),
    "",
    `  worker: rollups caught up on the new primary: ${summary.worker.rollupsCaughtUp ? "yes" : "NO"}; queue restarts ${summary.worker.queueRestarts}; process exits ${summary.worker.workerExits}`,
    `  dashboard: ${summary.dashboard.loads} loads (${summary.dashboard.ok} pages, ${summary.dashboard.errorPages} error pages, ${summary.dashboard.leaks.length} showing internals); recovered: ${summary.dashboard.recovered ? "yes" : "NO"}`,
  ];
  const c = summary.control;
  if (c) {
    lines.push(
      "",
      "asynchronous replication (the unsafe control)",
      `  sent ${c.sent}, acknowledged ${c.acknowledged}, LOST ${c.lost}${c.lost === 0 ? "  (FAIL: the control must lose)" : ""}` +
        (c.failover
          ? `; standby behind ${c.failover.standbyBehindBytes === null ? "—" : `${Math.round(c.failover.standbyBehindBytes / 1024)} KiB`} at the kill, promoted after ${seconds(c.failover.promotedAt === null ? null : c.failover.promotedAt - c.failover.killedAt)}`
          : ""),
    );
  }
  lines.push("", `cluster set-up ${seconds(summary.setupMs)}; whole run ${seconds(summary.totalMs)}`);
  return lines.join("\n");
}

export function writeFailoverResults(summary: FailoverSummary): string {
  const file = summary.options.quick ? "bench/results/failover-quick.json" : "bench/results/failover.json";
  return writeRunResults("failover", file, summary);
}
