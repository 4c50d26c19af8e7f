// The isolation phase: signed ingest at c=8 alone, then the same load while the
// dashboard is hammered (60 concurrent sign-ins with unknown emails through next-auth's own
// credentials callback + 3 concurrent full CSV exports of the ledger), measured in the same run.
// Target: 0 ingest non-2xx under load and p99 ≤ 2× the unloaded p99.
import type { AppUnderTest } from "./app-under-test";
import type { createEventStream } from "./event-stream";
import { runLoadPhase, type PhaseResult } from "./load-phase";

export type IsolationResult = {
  unloaded: PhaseResult;
  loaded: PhaseResult;
  p99Ratio: number;
  signIns: { completed: number; statuses: Record<string, number>; errorCodes: Record<string, number>; perSec: number };
  exports: { started: number; completed: number; busy503: number; bytes: number; rowsPerSec: number };
};

export async function runIsolationPhase(
  app: AppUnderTest,
  options: {
    stream: ReturnType<typeof createEventStream>;
    seconds: number;
    staffCookie: string;
    signIns?: number;
    exports?: number;
  },
): Promise<IsolationResult> {
  const nextDelivery = () => options.stream.next();
  await runLoadPhase(app, { name: "isolation warm-up", connections: 8, seconds: 3, nextDelivery });
  const unloaded = await runLoadPhase(app, {
    name: "ingest c=8 unloaded",
    connections: 8,
    seconds: options.seconds,
    nextDelivery,
  });

  let stop = false;
  const abort = new AbortController();
  const signIns = { completed: 0, statuses: {} as Record<string, number>, errorCodes: {} as Record<string, number> };
  const exports = { started: 0, completed: 0, busy503: 0, bytes: 0 };
  const count = (map: Record<string, number>, key: string) => (map[key] = (map[key] ?? 0) + 1);

  const signInWorker = async (worker: number) => {
    for (let i = 0; !stop; i++) {
      try {
        const csrf = await fetch(`${app.baseUrl}/api/auth/csrf`, { signal: abort.signal });
        const cookie = csrf.headers
          .getSetCookie()
          .map((c) => c.split(";")[0])
          .join("; ");
        const { csrfToken } = (await csrf.json()) as { csrfToken: string };
        const response = await fetch(`${app.baseUrl}/api/auth/callback/credentials`, {
          method: "POST",
          redirect: "manual",
          signal: abort.signal,
          headers: { "content-type": "application/x-www-form-urlencoded", cookie },
          body: new URLSearchParams({
            csrfToken,
            email: `nobody-${worker}-${i}@bench.test`,
            password: `guess-${i}`,
            json: "true",
          }),
        });
        const body = (await response.json().catch(() => ({}))) as { url?: string };
        count(signIns.statuses, String(response.status));
        count(
          signIns.errorCodes,
          body.url ? (new URL(body.url, app.baseUrl).searchParams.get("error") ?? "none") : "no url",
        );
        signIns.completed++;
      } catch {
        if (!stop) count(signIns.statuses, "network error");
      }
    }
  };

  const exportWorker = async () => {
    while (!stop) {
      exports.started++;
      try {
        const response = await fetch(`${app.baseUrl}/ledger/export`, {
          headers: { cookie: options.staffCookie },
          signal: abort.signal,
        });
        if (response.status === 503) {
          exports.busy503++;
          await response.text();
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          continue;
        }
        if (!response.ok || !response.body) throw new Error(`export answered ${response.status}`);
        const reader = response.body.getReader();
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
          exports.bytes += chunk.value.byteLength;
        exports.completed++;
      } catch (error) {
        if (!stop) throw error;
      }
    }
  };

  const started = performance.now();
  const workers = [
    ...Array.from({ length: options.signIns ?? 60 }, (_, i) => signInWorker(i)),
    ...Array.from({ length: options.exports ?? 3 }, () => exportWorker()),
  ];
  // Let the dashboard load build up before ingest is measured.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const loaded = await runLoadPhase(app, {
    name: "ingest c=8 + 60 sign-ins + 3 CSV",
    connections: 8,
    seconds: options.seconds,
    nextDelivery,
  });
  stop = true;
  abort.abort();
  await Promise.allSettled(workers);
  const elapsed = (performance.now() - started) / 1000;
  // ~90 bytes per ledger CSV line: a rough rows/s for the exports.
  return {
    unloaded,
    loaded,
    p99Ratio: loaded.p99 / Math.max(unloaded.p99, 0.001),
    signIns: { ...signIns, perSec: signIns.completed / elapsed },
    exports: { ...exports, rowsPerSec: exports.bytes / 90 / elapsed },
  };
}

export function formatIsolation(result: IsolationResult): string {
  const { unloaded, loaded } = result;
  return [
    "isolation: signed ingest c=8 alone vs with 60 concurrent sign-ins + 3 concurrent full CSV exports",
    `  unloaded: ${unloaded.requestsPerSec.toFixed(0)} req/s, p50 ${unloaded.p50.toFixed(1)} ms, p99 ${unloaded.p99.toFixed(1)} ms, non-2xx ${unloaded.non2xx}, errors ${unloaded.errors}`,
    `  loaded:   ${loaded.requestsPerSec.toFixed(0)} req/s, p50 ${loaded.p50.toFixed(1)} ms, p99 ${loaded.p99.toFixed(1)} ms, non-2xx ${loaded.non2xx}, errors ${loaded.errors}`,
    `  p99 loaded / unloaded = ${result.p99Ratio.toFixed(2)} (target ≤ 2), ingest non-2xx under load = ${loaded.non2xx} (target 0)`,
    `  sign-ins: ${result.signIns.completed} answered (${result.signIns.perSec.toFixed(1)}/s), statuses ${JSON.stringify(result.signIns.statuses)}, codes ${JSON.stringify(result.signIns.errorCodes)}`,
    `  exports: ${result.exports.completed} completed of ${result.exports.started} started, ${result.exports.busy503} answered 503 busy, ${(result.exports.bytes / 1e6).toFixed(1)} MB (≈ ${result.exports.rowsPerSec.toFixed(0)} rows/s)`,
  ].join("\n");
}
