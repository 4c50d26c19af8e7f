// The events: the simulator issues, rotates and revokes keys (simulator/stream.ts) at a steady
// pace, in small batches through POST /_sim/emit, so the run lasts long enough for the nemesis to
// strike many times while deliveries are in flight. Every event has a unique id; the simulator
// itself adds the duplicates, reordering, lost responses and retries.
import type { SimulatorProcess } from "../test/support/simulator";

const TICK_MS = 250;

export async function emitPaced(options: {
  sim: SimulatorProcess;
  events: number;
  tenants: number;
  ratePerSecond: number;
  /** Stops early (the run is failing); the ids emitted so far are returned. */
  shouldStop: () => boolean;
}): Promise<string[]> {
  const ids: string[] = [];
  const started = performance.now();
  while (ids.length < options.events && !options.shouldStop()) {
    // Catch up to the pace (a slow tick emits more next time), never past the total.
    const due = Math.min(
      options.events,
      Math.floor(((performance.now() - started) / 1000) * options.ratePerSecond) + 1,
    );
    const count = due - ids.length;
    if (count > 0) {
      const emitted = await options.sim.control<{ emitted: number; event_ids: string[] }>("POST", "/_sim/emit", {
        count,
        tenantCount: options.tenants,
        tenantPrefix: "district-faults-",
      });
      ids.push(...emitted.event_ids);
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  return ids;
}
