// L0, the database's own limit: pgbench running the statement the ingest runs (claim, ordering
// rules, key change, receipt) inside BEGIN … COMMIT like the interactive transaction, with random
// tenants and event ids. The statement is the app's own (ingestStatement, exported by
// lib/core/ingest/apply-key-event.ts), never copied: each parameter is replaced by a pgbench value,
// and a parameter this file does not know stops the benchmark, so a change of the ingest
// statement cannot silently leave L0 measuring an old one.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ingestStatement } from "../../lib/core/ingest/apply-key-event";
import type { KeyEvent } from "../../lib/core/ingest/event-schema";

export type PgbenchResult = { connections: number; seconds: number; tps: number; latencyAvgMs: number; failed: number };

export function findPgbench(): string | null {
  for (const candidate of [
    "pgbench",
    "/usr/lib/postgresql/18/bin/pgbench",
    "/usr/lib/postgresql/17/bin/pgbench",
    "/usr/lib/postgresql/16/bin/pgbench",
    "/usr/lib/postgresql/15/bin/pgbench",
  ]) {
    if (spawnSync(candidate, ["--version"]).status === 0) return candidate;
  }
  return null;
}

const BODY = `'{"id":"evt","type":"key.created","tenant_id":"t","key_id":"k","sequence":1,"data":{"prefix":"ik_live_l0","scopes":["rosters:read"]}}'`;

/**
 * The ingest statement exactly as the app builds it (ingestStatement of lib/core/ingest/apply-key-event.ts),
 * built from marker values, each parameter then replaced by its pgbench expression. A parameter
 * this file does not recognise stops the benchmark.
 */
export function ingestStatementForPgbench(options: { denseSequences?: boolean } = {}): string {
  const occurredAt = new Date(0);
  const receivedAt = new Date(1);
  const scopes = ["rosters:read"];
  const sql = ingestStatement(
    {
      event: {
        id: "@event",
        type: "@type",
        tenantId: "@tenant",
        keyId: "@key",
        previousKeyId: null,
        sequence: -7001,
        occurredAt,
        prefix: "@prefix",
        scopes,
      } as unknown as KeyEvent,
      payloadJson: "@payload",
      receivedAt,
      receipt: {
        webhookId: "@webhook",
        bodyBytes: -7002,
        handlerMicros: -7003,
        source: "provider",
        secretFingerprint: "@fingerprint",
        clockSkewMs: -7004,
      },
    },
    5_000,
  );
  const expressions = new Map<unknown, string>([
    ["@tenant", options.denseSequences ? `('l0-dense-' || :client_id::text)` : `('l0-' || :tenant::text)`],
    ["@event", `('evt_l0_' || :client_id::text || '_' || :n::text)`],
    ["@type", `'key.created'`],
    ["@key", `('key_l0_' || :client_id::text || '_' || :n::text)`],
    [null, "NULL::text"],
    // Random sequences (default) put every event in or next to a gap; dense ones are what the
    // provider sends: each pgbench client is its own district counting 1, 2, 3 … (the sequences
    // are created by createDenseSequences).
    [-7001, options.denseSequences ? `nextval(('keyhook_l0_seq_' || :client_id::text)::regclass)` : ":n"],
    ["@prefix", `'ik_live_l0'`],
    [scopes, `ARRAY['rosters:read']`],
    [occurredAt, "now()"],
    [receivedAt, "now()"],
    ["@payload", BODY],
    ["@webhook", `'evt_l0'`],
    ["valid", `'valid'`],
    [-7003, "0"],
    [-7002, "200"],
    ["@fingerprint", `'a1b2c3d4'`],
    [-7004, "12"],
    ["provider", `'provider'`],
    [5_000, "5000"],
    // PROVIDER_SEQUENCES_DENSE (gap tracking on or off), as the app's setting says.
    [true, "true"],
    [false, "false"],
  ]);
  return sql.text.replace(/\$(\d+)/g, (_, n: string) => {
    const value = sql.values[Number(n) - 1];
    const expression = expressions.get(value);
    if (expression === undefined)
      throw new Error(
        `the ingest statement has a parameter pgbench does not know: ${JSON.stringify(value)} (add it to bench/support/pgbench-l0.ts)`,
      );
    return expression;
  });
}

export function pgbenchScript(options: { denseSequences?: boolean } = {}): string {
  return `\\set tenant random(1, 1000)\n\\set n random(1, 1000000000000)\nBEGIN;\n${ingestStatementForPgbench(options)
    .trim()
    .replace(/\s*\n\s*/g, " ")};\nCOMMIT;\n`;
}

export function runPgbench(options: {
  pgbench: string;
  databaseUrl: string;
  connections: number;
  seconds: number;
  /** See ingestStatementForPgbench; call createDenseSequences first. */
  denseSequences?: boolean;
}): PgbenchResult {
  const dir = mkdtempSync(path.join(os.tmpdir(), "keyhook-l0-"));
  const scriptPath = path.join(dir, "ingest.sql");
  writeFileSync(scriptPath, pgbenchScript({ denseSequences: options.denseSequences }));
  const threads = Math.min(options.connections, os.cpus().length);
  const result = spawnSync(
    options.pgbench,
    // Simple protocol: pgbench substitutes the values as literals. (The app's named statements
    // save the parse/plan; pgbench's prepared mode cannot type the parameters of this statement.)
    [
      "-n",
      "-M",
      "simple",
      "-f",
      scriptPath,
      "-c",
      String(options.connections),
      "-j",
      String(threads),
      "-T",
      String(options.seconds),
      options.databaseUrl,
    ],
    { encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`pgbench failed: ${result.stderr}`);
  const tps = Number(/tps = ([\d.]+)/.exec(result.stdout)?.[1] ?? NaN);
  const latencyAvgMs = Number(/latency average = ([\d.]+) ms/.exec(result.stdout)?.[1] ?? NaN);
  const failed = Number(/number of failed transactions: (\d+)/.exec(result.stdout)?.[1] ?? 0);
  return { connections: options.connections, seconds: options.seconds, tps, latencyAvgMs, failed };
}

/** The per-client sequences of the dense variant (SQL to run once before pgbench). */
export function createDenseSequencesSql(connections: number): string {
  return Array.from(
    { length: connections },
    (_, client) => `CREATE SEQUENCE IF NOT EXISTS keyhook_l0_seq_${client};`,
  ).join("\n");
}
