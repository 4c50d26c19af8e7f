// The short version of `npm run bench:year` (test/support/year-simulation.ts): 14 simulated days
// of traffic, worker jobs (twice a day), nightly purges and people, with every window shortened
// so the longest (7 days: the audit log's minimum, a key's history) has filled by day 8. From then
// on no table may grow: every table's rows and size on day 14 are within 15 % of day 10, where a
// table nothing purges grows by 40 %.
import { afterAll, beforeAll, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/core/config/env";
import { resetDatabase } from "../../support/state";
import { plateaued, simulateYear, type TablesReport } from "../../support/year-simulation";

const WINDOWS = {
  RETENTION_DAYS: "3",
  PROVIDER_RETRY_HORIZON_HOURS: "24",
  RETENTION_MARGIN_HOURS: "24",
  PAYLOAD_RETENTION_DAYS: "1",
  OUTBOX_RETENTION_DAYS: "2",
  ALERT_RETENTION_DAYS: "2",
  GAP_RETENTION_DAYS: "2",
  RUN_HISTORY_RETENTION_DAYS: "2",
  AUDIT_RETENTION_DAYS: "7",
  KEY_HISTORY_RETENTION_DAYS: "7",
  SIGN_IN_FAILURE_RETENTION_DAYS: "7",
  DRIFT_PAGE_PAUSE_MS: "0",
};

beforeAll(() => {
  Object.assign(process.env, WINDOWS);
  resetEnvForTests();
});
afterAll(() => {
  for (const name of Object.keys(WINDOWS)) delete process.env[name];
  resetEnvForTests();
});

it("every table levels off once its window has filled", async () => {
  await resetDatabase();
  const { reports, events } = await simulateYear(process.env.DATABASE_URL!, {
    days: 14,
    eventsPerDay: 400,
    districts: 20,
    stepHours: 12,
    reportEveryDays: 2,
    signInsPerDay: 20,
  });
  const on = (day: number) => reports.find((r) => r.day === day)!;
  const [before, after] = [on(10), on(14)];

  expect(events).toBeGreaterThan(14 * 400 * 0.8);
  // The simulation exercised what the purge bounds (each of these had rows to purge).
  for (const table of ["processed_events", "receipts", "outbox", "alerts", "sequence_gaps", "audit_log", "api_keys"])
    expect(before.tables[table]!.rows, table).toBeGreaterThan(0);
  const limits = { rowSlack: 0.15, minRows: 20, byteSlack: 0.25, minBytes: 1024 * 1024 };
  const growing = Object.keys(after.tables).filter(
    (table) => !plateaued(before.tables[table] ?? { rows: 0, bytes: 0 }, after.tables[table]!, limits),
  );
  expect(growing, describe(reports, growing)).toEqual([]);
}, 300_000);

function describe(reports: TablesReport[], tables: string[]): string {
  return tables
    .map((table) => `${table}: ${reports.map((r) => `d${r.day} ${r.tables[table]?.rows}`).join(", ")}`)
    .join("\n");
}
