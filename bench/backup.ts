// `npm run bench:backup`: pgBackRest on Keyhook's database at 1 M and 10 M ledger rows: how long a
// full backup takes, how big the repository is, a day's incremental backup, and how long a
// restore takes (files laid down, then the WAL replayed and the server promoted). Prints figures,
// asserts nothing.
// For each size: PostgreSQL 15 archiving into an encrypted, zstd-compressed repository
// (test/support/archived-postgres.ts: docs/backup.md's settings), filled by test/support/fill-scale.ts
// (claims, as many receipts, 1,000 districts; the fill's own WAL is not archived: nothing before
// the first backup can be restored anyway), then:
//   1. a full backup;
//   2. a day of traffic (1/14 of the claims and receipts again, the fill spans 14 days), then an
//      incremental backup;
//   3. the disaster (data directory removed) and a restore to the end of the archive; the rows
//      are counted after it.
// Writes bench/results/backup.json and a line in bench/results/history.ndjson.
//   BENCH_BACKUP_CLAIMS (1000000,10000000: the sizes, in order), BENCH_BACKUP_PG_PORT (55125)
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startArchivedPostgres } from "../test/support/archived-postgres";
import { fillScale } from "../test/support/fill-scale";
import { applyMigrations } from "../tooling/migrations/wasm-engine";
import { writeResult } from "./support/results";

const SIZES = (process.env.BENCH_BACKUP_CLAIMS ?? "1000000,10000000").split(",").map(Number);
const PORT = Number(process.env.BENCH_BACKUP_PG_PORT ?? 55125);
const DIR = ".data/bench-backup";
const DISTRICTS = 1_000;

const round = (n: number) => Math.round(n * 100) / 100;
const mib = (bytes: number) => round(bytes / 1024 / 1024);
const seconds = (ms: number) => round(ms / 1000);
const load = () => os.loadavg().map(round);

type Scale = Record<string, unknown>;
const scales: Scale[] = [];

for (const claims of SIZES) {
  console.log(`\n── ${claims.toLocaleString("en")} claims ──`);
  const loadAtStart = load();
  const server = await startArchivedPostgres({
    dir: DIR,
    port: PORT,
    settings: { shared_buffers: "256MB", max_wal_size: "4GB", maintenance_work_mem: "256MB" },
    log: console.log,
  });
  try {
    const url = server.url("keyhook");
    const admin = new pg.Client({ connectionString: server.url("postgres") });
    await admin.connect();
    await admin.query("CREATE DATABASE keyhook");
    await admin.end();
    await applyMigrations({ databaseUrl: url });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const query = (sql: string, params?: unknown[]) => db.query(sql, params);

    await server.setArchiveCommand("/bin/true");
    const fill = await fillScale(query, { claims, receipts: claims, districts: DISTRICTS });
    await query("CHECKPOINT");
    await server.setArchiveCommand(null);
    await server.pgbackrest(["check"]);
    const databaseBytes = Number((await query("SELECT pg_database_size('keyhook') AS b")).rows[0].b);

    const full = await server.backup("full");
    const afterFull = repository(server.repoDir);
    console.log(
      `full backup: ${seconds(full.ms)} s; database ${mib(databaseBytes)} MiB → repository ${mib(afterFull.backup)} MiB`,
    );

    // A day of traffic: the fill's 14 days / 14, with ids and times after the fill's.
    const day = Math.round(claims / 14);
    const dayStarted = performance.now();
    await query(
      `INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, received_at, processed_at, occurred_at, payload)
       SELECT 'district-' || lpad((g % ${DISTRICTS})::text, 6, '0'), 'evt_day_' || g, 'key.rotated', 'key_day_' || g, $1::int + g,
              'applied', now(), now(), now(), '{"filled":true}'::jsonb
       FROM generate_series(1, $2::int) g`,
      [claims, day],
    );
    await query(
      `INSERT INTO receipts (received_at, webhook_id, tenant_id, event_id, signature_verdict, status, outcome, latency_micros, body_bytes, source)
       SELECT now(), 'evt_day_' || g, 'district-' || lpad((g % ${DISTRICTS})::text, 6, '0'), 'evt_day_' || g, 'valid', 200, 'applied', 900, 240, 'provider'
       FROM generate_series(1, $1::int) g`,
      [day],
    );
    const dayMs = Math.round(performance.now() - dayStarted);
    const incremental = await server.backup("incr");
    const afterIncremental = repository(server.repoDir);
    console.log(
      `a day (${day.toLocaleString("en")} claims and receipts, ${seconds(dayMs)} s) then an incremental backup: ${seconds(incremental.ms)} s, ` +
        `+${mib(afterIncremental.backup - afterFull.backup)} MiB`,
    );
    await server.switchWal({ timeoutMs: 600_000 });
    const repositoryBytes = repository(server.repoDir);
    await db.end();

    server.destroyData();
    const restored = await server.restore();
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const rows = Number((await check.query("SELECT count(*) AS n FROM processed_events")).rows[0].n);
    await check.end();
    console.log(
      `restore: files ${seconds(restored.restoreMs)} s, WAL replay and promotion ${seconds(restored.recoveryMs)} s; ` +
        `${rows.toLocaleString("en")} claims back (expected ${(claims + day).toLocaleString("en")})`,
    );
    scales.push({
      claims,
      receipts: claims,
      districts: DISTRICTS,
      fillMs: Object.values(fill).reduce((a, b) => a + b, 0),
      databaseMiB: mib(databaseBytes),
      fullBackupSeconds: seconds(full.ms),
      repositoryAfterFullMiB: mib(afterFull.backup),
      dayOfTraffic: { claims: day, receipts: day, insertSeconds: seconds(dayMs) },
      incrementalBackupSeconds: seconds(incremental.ms),
      incrementalMiB: mib(afterIncremental.backup - afterFull.backup),
      repositoryMiB: { backups: mib(repositoryBytes.backup), wal: mib(repositoryBytes.archive) },
      restoreSeconds: seconds(restored.restoreMs),
      replayAndPromoteSeconds: seconds(restored.recoveryMs),
      claimsAfterRestore: rows,
      restoredAll: rows === claims + day,
      loadAverage: { start: loadAtStart, end: load() },
    });
  } finally {
    await server.remove();
  }
}

writeResult("backup", {
  pgbackrest: "2.45, compress-type=zst, repo1-cipher-type=aes-256-cbc, process-max=2",
  postgres: "15, shared_buffers 256MB, max_wal_size 4GB, fsync on",
  scales,
});

/** The repository's two halves: the backups, and the archived WAL. */
function repository(repoDir: string): { backup: number; archive: number } {
  const size = (sub: string) => {
    try {
      return Number(execFileSync("du", ["-sb", path.join(repoDir, sub)], { encoding: "utf8" }).split("\t")[0]);
    } catch {
      return 0;
    }
  };
  return { backup: size("backup"), archive: size("archive") };
}
