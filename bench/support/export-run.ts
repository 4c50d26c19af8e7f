// One full ledger CSV export over HTTP, read to the end, with the app's peak RSS sampled every
// 100 ms meanwhile: what bench:export and bench:dashboard both measure. A slow reader is paced to
// `slowMiBPerSec`, so the socket fills and the server must wait for it to drain.
import type { AppUnderTest } from "./app-under-test";

export type ExportRun = {
  status: number;
  rows: number;
  mib: number;
  seconds: number;
  rowsPerSec: number;
  rssBeforeMiB: number;
  rssMaxMiB: number;
  rssGrowthMiB: number;
};

export async function runLedgerExport(
  app: AppUnderTest,
  cookie: string,
  options: { slowMiBPerSec?: number } = {},
): Promise<ExportRun> {
  const rssBefore = app.rssMiB();
  let rssMax = rssBefore;
  const sampler = setInterval(() => (rssMax = Math.max(rssMax, app.rssMiB())), 100);
  const started = performance.now();
  try {
    const response = await fetch(`${app.baseUrl}/ledger/export`, { headers: { cookie } });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      let at = chunk.indexOf(10);
      while (at >= 0) {
        lines++;
        at = chunk.indexOf(10, at + 1);
      }
      if (options.slowMiBPerSec) {
        const dueMs = (bytes / 1048576 / options.slowMiBPerSec) * 1000;
        const aheadMs = dueMs - (performance.now() - started);
        if (aheadMs > 1) await new Promise((resolve) => setTimeout(resolve, aheadMs));
      }
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      status: response.status,
      rows: lines - 1,
      mib: Math.round(bytes / 1048576),
      seconds: Math.round(seconds * 10) / 10,
      rowsPerSec: Math.round((lines - 1) / seconds),
      rssBeforeMiB: Math.round(rssBefore),
      rssMaxMiB: Math.round(rssMax),
      rssGrowthMiB: Math.round(rssMax - rssBefore),
    };
  } finally {
    clearInterval(sampler);
  }
}
