import "server-only";
// Gauges read from the database at scrape time (three statements in parallel), so every replica
// reports the same shared truth instead of its own partial counters. docs/metrics.md lists them.
import { Gauge, type Registry } from "prom-client";
import { prisma, type DbOrTx } from "../../core/db/client";
import { EVERY_DISTRICT } from "../../core/tenancy/district-scope";
import { countOpenQuarantine, openQuarantineFigure } from "../quarantine/count-open-quarantine";
import { tableSizes } from "../../operations/retention/bounded-tables";

type Row = {
  ledger_rows: number;
  outbox_backlog: number;
  superseded_keys: number;
  purge_runs: number;
  purge_failures: number;
  last_purge_seconds: number | null;
};

export async function databaseGaugesText(registry: Registry, db: DbOrTx = prisma): Promise<string> {
  const [[row], quarantine, sizes] = await Promise.all([
    db.$queryRaw<Row[]>`
    SELECT
      (SELECT GREATEST(reltuples, 0)::float8 FROM pg_class WHERE oid = 'processed_events'::regclass) AS ledger_rows,
      (SELECT count(*)::float8 FROM outbox WHERE status = 'pending') AS outbox_backlog,
      (SELECT count(*)::float8 FROM api_keys WHERE status = 'superseded') AS superseded_keys,
      (SELECT count(*)::float8 FROM purge_runs) AS purge_runs,
      (SELECT count(*)::float8 FROM purge_runs WHERE status = 'failed') AS purge_failures,
      (SELECT extract(epoch FROM max(started_at))::float8 FROM purge_runs WHERE status = 'ran') AS last_purge_seconds`,
    countOpenQuarantine({ scope: EVERY_DISTRICT }, db),
    tableSizes(db),
  ]);
  const scratch = new (registry.constructor as new () => Registry)();
  const gauge = (name: string, help: string, value: number | null | undefined) => {
    if (value === null || value === undefined) return;
    new Gauge({ name, help, registers: [scratch] }).set(Number(value));
  };
  gauge(
    "keyhook_ledger_rows",
    "Dedupe ledger rows (planner estimate: exact counts are too slow at scale).",
    row?.ledger_rows,
  );
  gauge("keyhook_outbox_backlog", "Outbound provider calls staged and not yet sent.", row?.outbox_backlog);
  gauge(
    "keyhook_quarantine_open",
    "Quarantined events waiting for a human (exact up to 10,000, PostgreSQL's estimate above).",
    openQuarantineFigure(quarantine),
  );
  gauge(
    "keyhook_quarantine_open_estimated",
    "1 when keyhook_quarantine_open is an estimate.",
    quarantine.exact ? 0 : 1,
  );
  gauge(
    "keyhook_superseded_keys",
    "Keys superseded while still active: possibly-live credentials nobody revoked.",
    row?.superseded_keys,
  );
  gauge("keyhook_purge_runs", "Purge runs recorded (within the run-history window).", row?.purge_runs);
  gauge("keyhook_purge_failures", "Ledger purge runs that failed.", row?.purge_failures);
  gauge("keyhook_last_purge_timestamp_seconds", "Start of the last successful purge run.", row?.last_purge_seconds);
  const tableBytes = new Gauge({
    name: "keyhook_table_size_bytes",
    help: "On-disk size of each table that grows with traffic or time (docs/retention.md).",
    labelNames: ["table"],
    registers: [scratch],
  });
  for (const [table, size] of sizes) tableBytes.set({ table }, size.bytes);
  return scratch.metrics();
}
