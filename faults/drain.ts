// Waits until the simulator has nothing left to deliver: every message delivered or given up
// (the retry horizon is bounded), no copy queued or in flight; or the timeout.
import type { SimulatorProcess, SimulatorStats } from "../test/support/simulator";

export async function drainSimulator(
  sim: SimulatorProcess,
  options: { timeoutMs: number; log: (line: string) => void },
): Promise<{ stats: SimulatorStats; drainMs: number }> {
  const drainStarted = performance.now();
  let stats: SimulatorStats = await sim.stats();
  let lastReport = 0;
  while (stats.messages.pending > 0 || stats.queued > 0 || stats.inFlight > 0) {
    if (performance.now() - drainStarted > options.timeoutMs) {
      options.log(`drain timed out after ${options.timeoutMs} ms with ${stats.messages.pending} messages pending`);
      break;
    }
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      options.log(
        `draining: ${stats.messages.succeeded} delivered, ${stats.messages.pending} pending, ${stats.queued} queued, ${stats.messages.failed} failed`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
    stats = await sim.stats();
  }
  return { stats, drainMs: Math.round(performance.now() - drainStarted) };
}
