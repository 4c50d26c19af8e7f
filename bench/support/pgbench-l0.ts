// L0, the database's own limit: pgbench running the statement the ingest runs (claim, ordering
// rules, key change, receipt) inside BEGIN … COMMIT like the interactive transaction, with random
// tenants and event ids. The statement is read from the app's source (lib/ingest/apply-key-event.ts,
// the tagged template passed to $queryRaw), never copied: each ${…} parameter is replaced by the
// pgbench value below, and an expression this file does not know stops the benchmark, so a change
// of the ingest statement cannot silently leave L0 measuring an old one.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export type PgbenchResult = { connections: number; seconds: number; tps: number; latencyAvgMs: number; failed: number };

export const INGEST_STATEMENT_SOURCE = "lib/ingest/apply-key-event.ts";

export function findPgbench(): string | null {
  for (const candidate of ["pgbench", "/usr/lib/postgresql/18/bin/pgbench", "/usr/lib/postgresql/17/bin/pgbench", "/usr/lib/postgresql/16/bin/pgbench", "/usr/lib/postgresql/15/bin/pgbench"]) {
    if (spawnSync(candidate, ["--version"]).status === 0) return candidate;
  }
  return null;
}

const BODY = `'{"id":"evt","type":"key.created","tenant_id":"t","key_id":"k","sequence":1,"data":{"prefix":"ik_live_l0","scopes":["rosters:read"]}}'`;

/** What each parameter of the app's statement becomes in pgbench (keyed by its source text). */
const PARAMETERS: Record<string, string> = {
  "event.tenantId": `('l0-' || :tenant::text)`,
  "event.id": `('evt_l0_' || :client_id::text || '_' || :n::text)`,
  "event.type": `'key.created'`,
  "key?.keyId ?? null": `('key_l0_' || :client_id::text || '_' || :n::text)`,
  "key?.previousKeyId ?? null": "NULL::text",
  "event.sequence": ":n",
  "key?.prefix ?? null": `'ik_live_l0'`,
  "key?.scopes ?? null": `ARRAY['rosters:read']`,
  "event.occurredAt": "now()",
  rawBody: BODY,
  payloadJson: BODY,
  receivedAt: "now()",
  "receipt.webhookId": `'evt_l0'`,
  'receipt.source === "replay" ? "not_checked" : "valid"': `'valid'`,
  "receipt.handlerMicros": "0",
  "receipt.bodyBytes": "200",
  "receipt.source": `'provider'`,
};

/** The ingest statement of the app's source with pgbench values in place of its parameters. */
export function ingestStatementForPgbench(sourceFile = INGEST_STATEMENT_SOURCE): string {
  const source = readFileSync(sourceFile, "utf8");
  const match = /\$queryRaw<[^>]*>`([\s\S]*?)`/.exec(source);
  if (!match) throw new Error(`no $queryRaw\`…\` statement found in ${sourceFile}: update bench/support/pgbench-l0.ts`);
  return match[1]!.replace(/\$\{([^}]*(?:\{[^}]*\}[^}]*)*)\}/g, (_, expression: string) => {
    const value = PARAMETERS[expression.trim()];
    if (value === undefined) throw new Error(`the ingest statement has a parameter pgbench does not know: \${${expression}} (add it to bench/support/pgbench-l0.ts)`);
    return value;
  });
}

export function pgbenchScript(): string {
  return `\\set tenant random(1, 1000)\n\\set n random(1, 1000000000000)\nBEGIN;\n${ingestStatementForPgbench().trim().replace(/\s*\n\s*/g, " ")};\nCOMMIT;\n`;
}

export function runPgbench(options: { pgbench: string; databaseUrl: string; connections: number; seconds: number }): PgbenchResult {
  const dir = mkdtempSync(path.join(os.tmpdir(), "keyhook-l0-"));
  const scriptPath = path.join(dir, "ingest.sql");
  writeFileSync(scriptPath, pgbenchScript());
  const threads = Math.min(options.connections, os.cpus().length);
  const result = spawnSync(
    options.pgbench,
    // Simple protocol: pgbench substitutes the values as literals. (The app's named statements
    // save the parse/plan; pgbench's prepared mode cannot type the parameters of this statement.)
    ["-n", "-M", "simple", "-f", scriptPath, "-c", String(options.connections), "-j", String(threads), "-T", String(options.seconds), options.databaseUrl],
    { encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`pgbench failed: ${result.stderr}`);
  const tps = Number(/tps = ([\d.]+)/.exec(result.stdout)?.[1] ?? NaN);
  const latencyAvgMs = Number(/latency average = ([\d.]+) ms/.exec(result.stdout)?.[1] ?? NaN);
  const failed = Number(/number of failed transactions: (\d+)/.exec(result.stdout)?.[1] ?? 0);
  return { connections: options.connections, seconds: options.seconds, tps, latencyAvgMs, failed };
}
