// `npm run bench:year`: "a year in an afternoon". Runs the stated year (test/support/year-
// simulation.ts says what a simulated day holds) on a controlled clock against a fresh database
// of its own embedded PostgreSQL and prints every table's rows and size each simulated month; at
// the end, whether each table has levelled off over the last two months (rows within 5 %, size
// within 15 %).
// The stated year: 10,000 deliveries a day over 400 districts (25 a district a day), the worker
// every 6 simulated hours, a drift check a week; every setting at its default except the two
// 400-day windows (the audit log, a key's history), which cannot fill within a year: 180 days
// here, so that they level off by month 7 like the rest (the same purge; at 400 days their level
// is 400/180 of the one printed). A deployment five times larger, 50,000 a day over 2,000 districts, is
//   BENCH_EVENTS_PER_DAY=50000 BENCH_DISTRICTS=2000 npm run bench:year
// (about five times as long: ingest is most of the time). A 16-month run at the 400-day defaults:
//   BENCH_DAYS=480 AUDIT_RETENTION_DAYS=400 KEY_HISTORY_RETENTION_DAYS=400 npm run bench:year
//   BENCH_DAYS (365), BENCH_EVENTS_PER_DAY (10000), BENCH_DISTRICTS (400), BENCH_STEP_HOURS (6),
//   BENCH_DRIFT_HOURS (168), BENCH_REPORT_DAYS (30), BENCH_PG_PORT (54571); any retention setting.
// Writes bench/results/year.json (after every month, so a run cut short leaves its months) and,
// when done, a line in bench/results/history.ndjson.
import { writeFileSync } from "node:fs";
import os from "node:os";
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { freshMigratedDatabase } from "./support/fresh-database";
import { writeResult } from "./support/results";
import type { TablesReport } from "../test/support/year-simulation";

const config = {
  days: Number(process.env.BENCH_DAYS ?? 365),
  eventsPerDay: Number(process.env.BENCH_EVENTS_PER_DAY ?? 10_000),
  districts: Number(process.env.BENCH_DISTRICTS ?? 400),
  stepHours: Number(process.env.BENCH_STEP_HOURS ?? 6),
  driftEveryHours: Number(process.env.BENCH_DRIFT_HOURS ?? 168),
  reportEveryDays: Number(process.env.BENCH_REPORT_DAYS ?? 30),
};
const PG_PORT = Number(process.env.BENCH_PG_PORT ?? 54571);

const server = await startEmbeddedPostgres({ dataDir: ".data/year-bench", port: PG_PORT, database: "postgres" });
const databaseUrl = await freshMigratedDatabase(server, "keyhook_year_bench");
process.env.DATABASE_URL = databaseUrl;
// The simulated channel's transient 503s would log a warning each.
process.env.LOG_LEVEL ??= "error";
// The drift check's pause between pages is for sharing the cores with live ingest; here it would
// only stretch the afternoon.
process.env.DRIFT_PAGE_PAUSE_MS ??= "0";
process.env.AUDIT_RETENTION_DAYS ??= "180";
process.env.KEY_HISTORY_RETENTION_DAYS ??= "180";
const settings = Object.fromEntries(
  [
    "RETENTION_DAYS",
    "PAYLOAD_RETENTION_DAYS",
    "OUTBOX_RETENTION_DAYS",
    "ALERT_RETENTION_DAYS",
    "GAP_RETENTION_DAYS",
    "RUN_HISTORY_RETENTION_DAYS",
    "AUDIT_RETENTION_DAYS",
    "KEY_HISTORY_RETENTION_DAYS",
    "SIGN_IN_FAILURE_RETENTION_DAYS",
  ].map((name) => [name, process.env[name] ?? "default"]),
);

const { simulateYear, plateaued } = await import("../test/support/year-simulation");
const { disconnectDb } = await import("../lib/core/db/client");
const started = performance.now();
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1).padStart(9);
console.log(`settings (unset: lib/core/config/env.ts's default): ${JSON.stringify(settings)}`);
console.log(
  `year: ${config.days} days, ${config.eventsPerDay.toLocaleString("en")} deliveries a day over ${config.districts.toLocaleString("en")} districts, the worker every ${config.stepHours} h, a drift check every ${config.driftEveryHours} h`,
);
const reports: TablesReport[] = [];
const partial = () =>
  writeFileSync(
    "bench/results/year.json",
    JSON.stringify({ bench: "year", partial: true, at: new Date().toISOString(), config, settings, reports }, null, 2) +
      "\n",
  );
try {
  const result = await simulateYear(databaseUrl, {
    ...config,
    log: (line) => console.log(`${line} (${Math.round((performance.now() - started) / 1000)} s)`),
    onReport: (report: TablesReport) => {
      console.log(
        `month ${Math.round(report.day / config.reportEveryDays)} (day ${report.day}, ${report.at.slice(0, 10)})`,
      );
      for (const [table, figure] of Object.entries(report.tables))
        if (figure.rows > 0 || figure.bytes > 65_536)
          console.log(
            `  ${table.padEnd(34)} ${figure.rows.toLocaleString("en").padStart(12)} rows ${mib(figure.bytes)} MiB` +
              ` (indexes ${mib(figure.indexBytes ?? 0).trim()})`,
          );
      reports.push(report);
      partial();
    },
  });
  const last = result.reports.at(-1)!;
  const earlier = result.reports.at(-3) ?? result.reports[0]!;
  const verdicts = Object.fromEntries(
    Object.keys(last.tables).map((table) => [
      table,
      plateaued(earlier.tables[table] ?? { rows: 0, bytes: 0 }, last.tables[table]!) ? "level" : "GROWING",
    ]),
  );
  const growing = Object.entries(verdicts)
    .filter(([, v]) => v !== "level")
    .map(([t]) => t);
  console.log(`\nrows by month (${earlier.day} → ${last.day}: level = rows within 5 %, size within 15 %)`);
  for (const table of Object.keys(last.tables)) {
    const rows = result.reports.map((r) => (r.tables[table]?.rows ?? 0).toLocaleString("en"));
    console.log(`  ${table.padEnd(34)} ${verdicts[table]!.padEnd(8)} ${rows.join(" · ")}`);
  }
  const seconds = Object.fromEntries(Object.entries(result.seconds).map(([k, v]) => [k, Math.round(v)]));
  console.log(
    `\n${result.events.toLocaleString("en")} deliveries in ${Math.round((performance.now() - started) / 60_000)} min; seconds by part: ${JSON.stringify(seconds)}`,
  );
  console.log(growing.length ? `tables still growing: ${growing.join(", ")}` : "every table levelled off");
  writeResult("year", {
    config,
    settings,
    deliveries: result.events,
    minutes: Math.round((performance.now() - started) / 60_000),
    secondsByPart: seconds,
    loadAverage: os.loadavg(),
    verdicts,
    growing,
    reports: result.reports,
  });
} finally {
  await disconnectDb();
  await server.stop();
}
