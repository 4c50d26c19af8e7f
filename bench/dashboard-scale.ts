// `npm run bench:dashboard`: every dashboard page's server time at scale, and the CSV export's
// memory. Fills (test/support/fill-scale.ts; BENCH_CLAIMS, BENCH_RECEIPTS, BENCH_DISTRICTS,
// default 1,000,000 / 1,000,000 / 1,000; the target scale is 10,000,000 / 10,000,000 / 100,000),
// folds the rollups once (timed), signs in as the platform admin through next-auth's own flow and
// times BENCH_REQUESTS (20) sequential full GETs per page (the whole streamed body) after 3
// warm-ups: p50 / p95 / max. Then one full ledger CSV export, sampling the app's RSS every 100 ms.
// BENCH_QUARANTINE_OPEN_EVERY=6 adds a storm of misrouted events: every 6th claim quarantined
// and open (1.67 M at 10 M claims). BENCH_KEEP_DB=1 reuses the database of the previous run when
// it holds the same fill.
// For iterating on one page: BENCH_PAGES (comma-separated parts of page names or paths: only
// those), BENCH_EXPORT=0 (no CSV export: it takes minutes at 10M rows), BENCH_APP_NODE_OPTIONS
// (NODE_OPTIONS of the app, e.g. `--require <a preload starting the inspector profiler>`: where a
// render's time goes). BENCH_COMPARE=<a label> prints the latest run with that BENCH_LABEL (from
// the history) beside each page: the same pages before a change, same fill (BENCH_LABEL=before
// on the old build, then BENCH_COMPARE=before on the new one).
// Results: bench/results/dashboard-scale.json and a line in bench/results/history.ndjson.
import os from "node:os";
import { BENCH_PORTS, startAppUnderTest } from "./support/app-under-test";
import { signInCookie, timePage, type RenderTiming } from "./support/dashboard-render";
import { runLedgerExport } from "./support/export-run";
import { BIG_DISTRICT, fillScale, type FillTimings } from "../test/support/fill-scale";
import { labelledResult, writeResult } from "./support/results";

const scale = {
  claims: Number(process.env.BENCH_CLAIMS ?? 1_000_000),
  receipts: Number(process.env.BENCH_RECEIPTS ?? 1_000_000),
  districts: Number(process.env.BENCH_DISTRICTS ?? 1_000),
  // A storm of misrouted events: every n-th claim quarantined and open (6: one in six).
  quarantineOpenEvery: process.env.BENCH_QUARANTINE_OPEN_EVERY
    ? Number(process.env.BENCH_QUARANTINE_OPEN_EVERY)
    : undefined,
};
const requests = Number(process.env.BENCH_REQUESTS ?? 20);
const TARGET_P95_MS = 100;
const only = (process.env.BENCH_PAGES ?? "")
  .split(",")
  .map((part) => part.trim())
  .filter(Boolean);
const selected = (name: string) => only.length === 0 || only.some((part) => name.includes(part));
const exportCsv = process.env.BENCH_EXPORT !== "0";
const compareLabel = process.env.BENCH_COMPARE;
const compared = compareLabel ? labelledResult<{ renders: RenderTiming[] }>("dashboard-scale", compareLabel) : null;
const earlier = new Map<string, RenderTiming>((compared?.renders ?? []).map((r) => [r.page, r]));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");

const label = `fill ${scale.claims}/${scale.receipts}/${scale.districts}${scale.quarantineOpenEvery ? ` storm 1/${scale.quarantineOpenEvery}` : ""}`;
const app = await startAppUnderTest({
  port: BENCH_PORTS.app,
  pgPort: BENCH_PORTS.pg,
  env: {
    KEYHOOK_SEED_DEMO: "1",
    ...(process.env.BENCH_APP_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_APP_NODE_OPTIONS } : {}),
  },
  keepDatabaseLabelled: process.env.BENCH_KEEP_DB === "1" ? label : undefined,
});
try {
  const q = (sql: string, params?: unknown[]) => app.query(sql, params);
  const [filled] = await app.query<{ label: string | null }>(
    `SELECT shobj_description(oid, 'pg_database') AS label FROM pg_database WHERE datname = current_database()`,
  );
  let fill: FillTimings | "kept" = "kept";
  const fillStarted = performance.now();
  if (filled?.label !== label) {
    fill = await fillScale(q, scale);
    await app.query(`COMMENT ON DATABASE keyhook_bench IS '${label}'`);
  }
  const fillSeconds = Math.round((performance.now() - fillStarted) / 100) / 10;

  // The worker folds every few seconds in production; here, once, timed (the first fold reads
  // every row). Two passes: the first sets the pending watermark, the second folds up to it.
  process.env.DATABASE_URL = app.databaseUrl;
  process.env.LOG_LEVEL ??= "warn";
  const { foldRollups } = await import("../lib/operations/rollups/fold-rollups");
  const { disconnectDb } = await import("../lib/core/db/client");
  const { pageQueries, pagingPaths } = await import("../test/support/page-queries");
  const foldStarted = performance.now();
  await foldRollups();
  await foldRollups();
  const foldSeconds = Math.round((performance.now() - foldStarted) / 100) / 10;
  const incrementalStarted = performance.now();
  await foldRollups();
  const incrementalFoldMs = Math.round(performance.now() - incrementalStarted);
  console.log(
    `fill: ${fill === "kept" ? "kept from the previous run" : `${fillSeconds} s`}; first fold of the rollups ${foldSeconds} s; an incremental fold ${incrementalFoldMs} ms`,
  );

  const [middle] = await app.query<{ id: string }>(`SELECT id::text FROM processed_events WHERE event_id = $1`, [
    `evt_fill_${Math.floor(scale.claims / 2) + 1}`,
  ]);
  const middleDistrict = `district-${String(Math.floor(scale.districts / 2)).padStart(6, "0")}`;
  const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
  const pages: string[] = [
    "/overview",
    "/districts",
    `/districts?q=${middleDistrict.slice(0, -1)}`,
    "/districts?q=cedar+hills",
    `/districts?cursor=${middleDistrict}`,
    `/districts/${BIG_DISTRICT}`,
    `/districts/${BIG_DISTRICT}?keys=rotated&cursor=${pagingPaths().keysCursor}`,
    "/ledger",
    "/ledger?outcome=quarantined",
    "/ledger?type=key.revoked",
    `/ledger?tenant=${BIG_DISTRICT}`,
    `/ledger?tenant=${middleDistrict}`,
    `/ledger?event=evt_fill_${Math.floor(scale.claims / 3)}`,
    `/ledger?from=${day}T10:00&to=${day}T11:00`,
    `/ledger/${middle!.id}`,
    "/deliveries",
    `/deliveries?event=evt_fill_${Math.floor(scale.claims / 3)}`,
    "/quarantine",
    `/quarantine?cursor=${pagingPaths().quarantineCursor}`,
    "/retention",
    "/audit",
    "/audit?action=key.revoke",
  ];
  // The data alone: each page's lib/ services called in this process, as the page calls them.
  const dataTimings: { page: string; p50: number; p95: number; max: number }[] = [];
  const queries = pageQueries({ claims: scale.claims, districts: scale.districts, ledgerId: middle!.id });
  for (const { page, run } of queries.filter((q) => selected(q.page))) {
    const durations: number[] = [];
    for (let i = 0; i < requests + 3; i++) {
      const started = performance.now();
      await run();
      if (i >= 3) durations.push(performance.now() - started);
    }
    durations.sort((a, b) => a - b);
    const at = (p: number) =>
      Math.round(durations[Math.min(durations.length - 1, Math.floor(p * durations.length))]! * 10) / 10;
    dataTimings.push({ page, p50: at(0.5), p95: at(0.95), max: at(1) });
    console.log(
      `data  ${page.padEnd(44)} p50 ${String(at(0.5)).padStart(6)} ms   p95 ${String(at(0.95)).padStart(6)} ms`,
    );
  }
  await disconnectDb();

  const cookie = await signInCookie(app.baseUrl, "admin@keyhook.test");
  // Baseline of the same run: the app's cheapest round trip (a health check), so a page's time can
  // be read as a multiple of what this machine gives any request right now.
  const baseline = await timePage(app.baseUrl, "/api/health", cookie, requests);
  console.log(`baseline /api/health p50 ${baseline.p50.toFixed(1)} ms   p95 ${baseline.p95.toFixed(1)} ms`);
  const loadBefore = load();
  console.log(`load average (1 / 5 / 15 min) before the pages: ${loadBefore}`);
  console.log(
    `page  ${"".padEnd(48)}   p50      p95   target p95${earlier.size ? `   before: p50     p95  (${compareLabel})` : ""}`,
  );
  const renders: RenderTiming[] = [];
  for (const page of pages.filter(selected)) {
    const timing = await timePage(app.baseUrl, page, cookie, requests);
    renders.push(timing);
    const before = earlier.get(page);
    console.log(
      `page  ${page.padEnd(48)} ${timing.p50.toFixed(0).padStart(5)} ms ${timing.p95.toFixed(0).padStart(5)} ms   < ${TARGET_P95_MS} ms ${timing.p95 < TARGET_P95_MS ? "ok  " : "OVER"}${before ? `   ${before.p50.toFixed(0).padStart(11)} ${before.p95.toFixed(0).padStart(7)}` : ""}`,
    );
  }
  const loadAfter = load();
  console.log(`load average after the pages: ${loadAfter}; /api/health p50 ${baseline.p50.toFixed(1)} ms`);

  // The full ledger as CSV, read as fast as the client can: RSS of the app's largest process.
  const csvExport = exportCsv ? await timeCsvExport(app, cookie) : "skipped (BENCH_EXPORT=0)";

  const over = renders.filter((r) => r.p95 >= TARGET_P95_MS).map((r) => r.page);
  console.log(
    over.length
      ? `pages at or over p95 ${TARGET_P95_MS} ms: ${over.join(", ")}`
      : `every page p95 < ${TARGET_P95_MS} ms`,
  );
  writeResult("dashboard-scale", {
    scale,
    fill,
    fillSeconds,
    foldSeconds,
    incrementalFoldMs,
    requests,
    targetP95Ms: TARGET_P95_MS,
    loadAverage: { beforePages: loadBefore, afterPages: loadAfter },
    dataTimings,
    baseline,
    renders,
    csvExport,
    overTarget: over,
  });
} finally {
  await app.stop();
}

async function timeCsvExport(app: Awaited<ReturnType<typeof startAppUnderTest>>, cookie: string) {
  const result = await runLedgerExport(app, cookie);
  console.log(
    `CSV export: ${result.rows.toLocaleString("en")} rows, ${result.mib} MiB in ${result.seconds} s (${result.rowsPerSec.toLocaleString("en")} rows/s); app RSS ${result.rssBeforeMiB} → max ${result.rssMaxMiB} MiB (growth ${result.rssGrowthMiB} MiB, limit 50)`,
  );
  return result;
}
