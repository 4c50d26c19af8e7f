// One load phase against the ingest route with autocannon, and the outcome counts it caused.
import autocannon from "autocannon";
/** Where a phase sends its deliveries and how it learns what they did. */
export type LoadTarget = {
  baseUrl: string;
  /** Outcome counts of the target's ledger (stable once in-flight transactions are done). */
  outcomeCounts: () => Promise<Record<string, number>>;
};

export type Delivery = { body: string; headers: Record<string, string> };

export type PhaseResult = {
  name: string;
  connections: number;
  seconds: number;
  requests: number;
  applied: number;
  appliedPerSec: number;
  requestsPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  outcomes: Record<string, number>;
};

export async function runLoadPhase(
  app: LoadTarget,
  options: { name: string; connections: number; seconds?: number; amount?: number; nextDelivery: () => Delivery },
): Promise<PhaseResult> {
  const before = await settledOutcomeCounts(app);
  const started = performance.now();
  const result = await autocannon({
    url: `${app.baseUrl}/api/webhooks/keys`,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds ?? 10 }),
    requests: [{ method: "POST", setupRequest: (request) => ({ ...request, ...options.nextDelivery() }) }],
  });
  const seconds = options.amount ? (performance.now() - started) / 1000 : (options.seconds ?? 10);
  const after = await settledOutcomeCounts(app);
  const outcomes: Record<string, number> = {};
  for (const [outcome, count] of Object.entries(after)) {
    const delta = count - (before[outcome] ?? 0);
    if (delta > 0) outcomes[outcome] = delta;
  }
  const duplicates = result["2xx"] - Object.values(outcomes).reduce((sum, n) => sum + n, 0);
  if (duplicates > 0) outcomes.duplicate = duplicates;
  const applied = outcomes.applied ?? 0;
  return {
    name: options.name,
    connections: options.connections,
    seconds: Math.round(seconds * 100) / 100,
    requests: result.requests.total,
    applied,
    appliedPerSec: applied / seconds,
    requestsPerSec: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    outcomes,
  };
}

/** Ledger outcome counts once in-flight transactions of the last phase have finished. */
async function settledOutcomeCounts(app: LoadTarget): Promise<Record<string, number>> {
  let previous = "";
  for (;;) {
    const counts = await app.outcomeCounts();
    const key = JSON.stringify(counts);
    if (key === previous) return counts;
    previous = key;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export function formatPhaseTable(phases: PhaseResult[]): string {
  const lines = ["phase                        conn   req/s  applied/s   p50 ms   p99 ms  non-2xx  errors  outcomes"];
  for (const p of phases) {
    lines.push(
      `${p.name.padEnd(28)} ${String(p.connections).padStart(4)} ${p.requestsPerSec.toFixed(0).padStart(7)} ${p.appliedPerSec.toFixed(0).padStart(10)} ${p.p50.toFixed(1).padStart(8)} ${p.p99.toFixed(1).padStart(8)} ${String(p.non2xx).padStart(8)} ${String(p.errors).padStart(7)}  ${JSON.stringify(p.outcomes)}`,
    );
  }
  return lines.join("\n");
}

/**
 * Signed deliveries at `connections` until `until` settles (or `seconds` pass): the background
 * load of a benchmark that measures ingest while something else runs (a purge, a drift check).
 */
export function runIngestLoadUntil(options: {
  url: string;
  connections: number;
  nextDelivery: () => Delivery;
  /** null or unset: run until `until` settles (at most an hour). */
  seconds?: number | null;
  until?: Promise<unknown>;
}): Promise<autocannon.Result> {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.seconds ?? 3600,
        requests: [{ method: "POST", setupRequest: (request) => ({ ...request, ...options.nextDelivery() }) }],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    void options.until?.finally(() => instance.stop());
  });
}
