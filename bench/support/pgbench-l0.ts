// L0, the database's own limit: pgbench running exactly the statement the ingest runs (claim,
// ordering rules, key change, receipt) inside BEGIN … COMMIT like the interactive transaction,
// with random tenants and event ids.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export type PgbenchResult = { connections: number; seconds: number; tps: number; latencyAvgMs: number; failed: number };

export function findPgbench(): string | null {
  for (const candidate of ["pgbench", "/usr/lib/postgresql/18/bin/pgbench", "/usr/lib/postgresql/17/bin/pgbench", "/usr/lib/postgresql/16/bin/pgbench", "/usr/lib/postgresql/15/bin/pgbench"]) {
    if (spawnSync(candidate, ["--version"]).status === 0) return candidate;
  }
  return null;
}

const SCRIPT = String.raw`\set tenant random(1, 1000)
\set n random(1, 1000000000000)
BEGIN;
WITH applied AS MATERIALIZED (
  SELECT * FROM keyhook_apply_event('l0-' || :tenant::int, 'evt_l0_' || :client_id::int || '_' || :n::bigint, 'key.created',
    'key_l0_' || :client_id::int || '_' || :n::bigint, NULL, :n::bigint, 'ik_live_l0', ARRAY['rosters:read'], now(),
    '{"id":"evt","type":"key.created","tenant_id":"t","key_id":"k","sequence":1,"data":{"prefix":"ik_live_l0","scopes":["rosters:read"]}}'::jsonb, now(), true)
), receipt AS (
  INSERT INTO receipts (received_at, webhook_id, tenant_id, event_id, signature_verdict, status, outcome, latency_micros, body_bytes, source, secret_fingerprint, clock_skew_ms)
  SELECT now(), 'evt_l0', 'l0-' || :tenant::int, 'evt_l0', 'valid', 200, applied.outcome, 0, 200, 'provider', 'a1b2c3d4', 12 FROM applied
)
SELECT outcome, reason, ledger_id, first_outcome FROM applied;
COMMIT;
`;

export function runPgbench(options: { pgbench: string; databaseUrl: string; connections: number; seconds: number }): PgbenchResult {
  const dir = mkdtempSync(path.join(os.tmpdir(), "keyhook-l0-"));
  const scriptPath = path.join(dir, "ingest.sql");
  writeFileSync(scriptPath, SCRIPT);
  const threads = Math.min(options.connections, os.cpus().length);
  const result = spawnSync(
    options.pgbench,
    ["-n", "-M", "simple", "-f", scriptPath, "-c", String(options.connections), "-j", String(threads), "-T", String(options.seconds), options.databaseUrl],
    { encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`pgbench failed: ${result.stderr}`);
  const tps = Number(/tps = ([\d.]+)/.exec(result.stdout)?.[1] ?? NaN);
  const latencyAvgMs = Number(/latency average = ([\d.]+) ms/.exec(result.stdout)?.[1] ?? NaN);
  const failed = Number(/number of failed transactions: (\d+)/.exec(result.stdout)?.[1] ?? 0);
  return { connections: options.connections, seconds: options.seconds, tps, latencyAvgMs, failed };
}
