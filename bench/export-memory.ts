// `npm run bench:export`: the full ledger CSV export's memory and rate at scale, on the production
// build (bench/support/app-under-test.ts) — the export part of bench:dashboard on its own, with a
// fast and a slow reader, because a slow client is where an export that ignores backpressure (or
// lets its chunks outlive the young generation) grows. Samples the RSS of the app's largest
// process every 100 ms; the target is a growth under 50 MiB at 10,000,000 rows.
//   BENCH_CLAIMS / BENCH_RECEIPTS / BENCH_DISTRICTS: the fill (10,000,000 / 10,000,000 / 100,000;
//   reused when .data/bench-postgres holds it, the label bench:dashboard and bench:purge write),
//   BENCH_EXPORT_READERS ("fast,slow"), BENCH_SLOW_READER_MIB_S (8): the slow reader's pace,
//   BENCH_EXPORT_LABEL: what is measured (e.g. "main" / "branch" when two builds alternate), kept
//   in the results with the build id. Where the memory goes inside the server: add
//   BENCH_APP_NODE_OPTIONS="--import ./bench/support/memory-sampler.mjs" (heap, external, rss every 500 ms).
// Writes bench/results/export-memory.json and a line in bench/results/history.ndjson.
import { readFileSync } from "node:fs";
import os from "node:os";
import { BENCH_PORTS, startAppUnderTest } from "./support/app-under-test";
import { signInCookie } from "./support/dashboard-render";
import { runLedgerExport } from "./support/export-run";
import { fillScale } from "../test/support/fill-scale";
import { writeResult } from "./support/results";

const scale = {
  claims: Number(process.env.BENCH_CLAIMS ?? 10_000_000),
  receipts: Number(process.env.BENCH_RECEIPTS ?? 10_000_000),
  districts: Number(process.env.BENCH_DISTRICTS ?? 100_000),
};
const readers = (process.env.BENCH_EXPORT_READERS ?? "fast,slow").split(",").map((r) => r.trim());
const slowMiBPerSec = Number(process.env.BENCH_SLOW_READER_MIB_S ?? 8);
const TARGET_GROWTH_MIB = 50;
const measured = process.env.BENCH_EXPORT_LABEL ?? "this build";
const label = `fill ${scale.claims}/${scale.receipts}/${scale.districts}`;

const app = await startAppUnderTest({
  port: BENCH_PORTS.app,
  pgPort: BENCH_PORTS.pg,
  env: { KEYHOOK_SEED_DEMO: "1" },
  keepDatabaseLabelled: label,
});
try {
  const [filled] = await app.query<{ label: string | null }>(
    `SELECT shobj_description(oid, 'pg_database') AS label FROM pg_database WHERE datname = current_database()`,
  );
  if (filled?.label !== label) {
    await fillScale((sql, params) => app.query(sql, params), scale);
    await app.query(`COMMENT ON DATABASE keyhook_bench IS '${label}'`);
  }
  const cookie = await signInCookie(app.baseUrl, "admin@keyhook.test");
  // Warm: the first export loads the route, the Prisma client and the CSV modules; that is start-up
  // memory, not the export's. A small filtered export first (a few thousand rows).
  const warm = await fetch(`${app.baseUrl}/ledger/export?outcome=quarantined`, { headers: { cookie } });
  await warm.arrayBuffer();
  const results = [];
  for (const reader of readers) {
    if (reader !== "fast" && reader !== "slow") throw new Error(`BENCH_EXPORT_READERS: unknown reader ${reader}`);
    const loadAvg1m = os.loadavg()[0]!;
    const run = await runLedgerExport(app, cookie, reader === "slow" ? { slowMiBPerSec } : {});
    const result = {
      reader,
      ...run,
      loadAvg1m: Math.round(loadAvg1m * 100) / 100,
      loadAvg1mAtEnd: Math.round(os.loadavg()[0]! * 100) / 100,
    };
    results.push(result);
    console.log(
      `CSV export (${measured}, ${reader} reader): ${result.rows.toLocaleString("en")} rows, ${result.mib} MiB in ${result.seconds} s ` +
        `(${result.rowsPerSec.toLocaleString("en")} rows/s); app RSS ${result.rssBeforeMiB} → max ${result.rssMaxMiB} MiB ` +
        `(growth ${result.rssGrowthMiB} MiB, target < ${TARGET_GROWTH_MIB}); load1m ${result.loadAvg1m} → ${result.loadAvg1mAtEnd}`,
    );
  }
  const buildId = readFileSync(".next/BUILD_ID", "utf8").trim();
  writeResult("export-memory", {
    measured,
    buildId,
    scale,
    slowMiBPerSec,
    targetGrowthMiB: TARGET_GROWTH_MIB,
    exports: results,
  });
} finally {
  await app.stop();
}
