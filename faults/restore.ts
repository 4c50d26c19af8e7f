// `npm run test:restore`: the restore drill of docs/backup.md. PostgreSQL 15 archives its WAL into
// a local, encrypted pgBackRest repository (test/support/archived-postgres.ts); the production
// build runs on it with its worker, and the provider simulator delivers signed key events:
//
//   1. load, then a full backup;
//   2. more load (the restore must replay it from the WAL archive), then the restore point T;
//   3. more load after T (revokes and rotations among it), every event acknowledged;
//   4. the disaster: PostgreSQL killed, its data directory removed;
//   5. pgBackRest restores to T; Keyhook starts on the restored database;
//   6. the control: the restore alone lost every event acknowledged after T, revokes among them
//      (the run fails if it did not: it could not tell a recovery from none);
//   7. `npm run recover -- --since T` (a dry run first), with the worker running;
//   8. the proof (faults/check-history.ts): every event the provider saw answered 2xx applied
//      exactly once, no tenant with two active keys, no revoked key live again, every key as the
//      provider has it, and the drift check clean.
// Exit 0 when all of that held, 1 on a violation, 2 when the harness itself failed.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEV_PROVIDER_API_KEY, DEV_WEBHOOK_SECRET } from "../lib/core/config/env";
import { createProviderClient } from "../lib/operations/provider/client";
import { registrationIdempotencyKey } from "../lib/operations/provider/webhook-registration";
import { archivedPostgresMissing, startArchivedPostgres } from "../test/support/archived-postgres";
import { withPgClient } from "../test/support/pg-client";
import { startSimulator, type SimulatorProcess } from "../test/support/simulator";
import { waitFor } from "../test/support/patroni-cluster";
import { createAppProcess } from "./app-process";
import { snapshotProductionBuild } from "./build-snapshot";
import { checkHistory, violations, type Figures } from "./check-history";
import { collectObservations, type Observations } from "./collect-observations";
import { drainSimulator } from "./drain";
import { assertPortsFree } from "./free-ports";
import { printVerdict, writeRunResults } from "./report";
import { startHarness } from "./harness";
import { readRestoreRunOptions, type RestoreRunOptions } from "./restore-options";
import { emitPaced } from "./workload";

const { options, log, elapsedMs, onCleanup, run } = startHarness("restore", () =>
  readRestoreRunOptions(process.argv.slice(2), process.env),
);

const DATABASE = "keyhook";

type RecoverRun = { exitCode: number; stdout: string; stderr: string; ms: number };

export type RestoreSummary = {
  options: RestoreRunOptions;
  events: { before: number; between: number; after: number };
  /** The load after the restore point, by event type (read before the disaster). */
  afterByType: Record<string, number>;
  timings: {
    fullBackupMs: number;
    repositoryBytes: number;
    restoreMs: number;
    /** From PostgreSQL's start on the restored files to its promotion (the WAL replayed to T). */
    replayMs: number;
    appBootMs: number;
    recoverMs: number;
    totalMs: number;
  };
  restorePoint: string;
  control: {
    /** Acknowledged events without a claim after the restore alone. */
    lost: number;
    lostRevokes: number;
    /** Keys the provider revoked that were live again here. */
    revokedKeysLive: number;
    /** Events between the backup and T the restore brought back from the WAL archive. */
    replayed: number;
  };
  recover: { dryRun: string; line: string; appliedAgain: number | null; absorbed: number | null; drift: number | null };
  figures: Figures;
  revokedKeysLiveAfter: number;
  rollupsCaughtUp: boolean;
  violations: string[];
};

async function main(): Promise<number> {
  const missing = archivedPostgresMissing();
  if (missing) throw new Error(missing);
  await assertPortsFree({ app: options.appPort, simulator: options.simPort, postgres: options.pgPort });
  const root = path.resolve(options.dataDir);
  mkdirSync(root, { recursive: true });
  const { appDir, buildId } = await snapshotProductionBuild({ dir: path.join(root, "app"), log });
  const logFile = path.join(root, "app.log");
  writeFileSync(logFile, "");
  log(
    `seed ${options.seed}: ${options.eventsBefore} events, full backup, ${options.eventsBetween} events, restore point, ` +
      `${options.eventsAfter} events, the disaster; ${options.tenants} tenants at ${options.rate}/s`,
  );

  const server = await startArchivedPostgres({ dir: path.join(root, "pg"), port: options.pgPort, log });
  onCleanup(() => server.remove());
  await withPgClient(server.url("postgres"), (client) => client.query(`CREATE DATABASE ${DATABASE}`));
  const databaseUrl = server.url(DATABASE);

  const simDir = path.join(root, "sim");
  rmSync(simDir, { recursive: true, force: true });
  const sim = await startSimulator({
    dataDir: simDir,
    env: {
      PROVIDER_SIM_PORT: String(options.simPort),
      PROVIDER_SIM_SEED: String(options.seed),
      PROVIDER_SIM_TIME_SCALE: String(options.timeScale),
      PROVIDER_SIM_CONCURRENCY: String(options.concurrency),
    },
  });
  onCleanup(() => sim.kill("SIGTERM"));

  const appEnv = {
    KEYHOOK_WITH_WORKER: "1",
    PROVIDER_URL: sim.url,
    DRIFT_CHECK_INTERVAL_HOURS: "0",
    ROLLUP_INTERVAL_MS: "1000",
  };
  const app = createAppProcess({
    port: options.appPort,
    databaseUrl,
    webhookSecret: DEV_WEBHOOK_SECRET,
    logFile,
    appDir,
    env: appEnv,
  });
  onCleanup(() => app.stop());
  log(`app ${buildId} started with its worker (${(await app.start()).bootMs} ms)`);
  // The worker registers the same URL under the same idempotency key: one hook.
  const client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
  const webhookUrl = `http://127.0.0.1:${options.appPort}/api/webhooks/keys`;
  const { hookId } = await client.registerWebhook({
    url: webhookUrl,
    idempotencyKey: registrationIdempotencyKey(webhookUrl),
  });

  const before = await load(sim, options.eventsBefore, "before the backup");
  const { ms: fullBackupMs } = await server.backup("full");
  log(`full backup in ${(fullBackupMs / 1000).toFixed(1)} s`);
  const between = await load(sim, options.eventsBetween, "between the backup and the restore point");
  // The database's own clock: PostgreSQL compares the target with its commit timestamps.
  const restorePoint = await withPgClient(databaseUrl, async (c) => {
    const { rows } = await c.query<{ at: string }>("SELECT clock_timestamp()::text AS at");
    return rows[0]!.at;
  });
  log(`restore point ${restorePoint}`);
  const after = await load(sim, options.eventsAfter, "after the restore point");
  const afterByType = await typesOf(databaseUrl, after);
  log(
    `after the restore point: ${Object.entries(afterByType)
      .map(([t, n]) => `${n} ${t}`)
      .join(", ")} (all acknowledged)`,
  );
  // The archive holds everything, the last load included: stopping at T is the restore's choice.
  await server.switchWal();
  const repositoryBytes = server.repositoryBytes();

  log("the disaster: PostgreSQL killed, its data directory removed");
  server.destroyData();
  await app.stop();
  const { restoreMs, recoveryMs: replayMs } = await server.restore({ targetTime: restorePoint });
  log(
    `restored to ${restorePoint}: pgbackrest restore ${(restoreMs / 1000).toFixed(1)} s, WAL replay and promotion ${(replayMs / 1000).toFixed(1)} s`,
  );
  const { bootMs: appBootMs } = await app.start();
  log(`app started on the restored database (${appBootMs} ms)`);

  const sent = [...before, ...between, ...after];
  const restored = await collectObservations({ simUrl: sim.url, hookId, databaseUrl });
  const controlFigures = checkHistory(sent, restored);
  const claimedNow = new Set(restored.ledger.map((row) => row.eventId));
  const lostIds = new Set(after.filter((id) => !claimedNow.has(id)));
  const lostRevokes = [...lostIds].filter((id) => eventTypes.get(id) === "key.revoked").length;
  const control = {
    lost: controlFigures.lost,
    lostRevokes,
    revokedKeysLive: revokedButLive(restored).length,
    replayed: between.filter((id) => claimedNow.has(id)).length,
  };
  log(
    `control (the restore alone): ${control.lost} acknowledged events lost, ${control.lostRevokes} of them revokes; ` +
      `${control.revokedKeysLive} keys the provider revoked are live here again; ${control.replayed}/${between.length} replayed from the archive`,
  );

  const recoverEnv = { DATABASE_URL: databaseUrl, PROVIDER_URL: sim.url, LOG_LEVEL: "warn" };
  const dryRun = await runRecover(["--since", restorePoint, "--dry-run"], recoverEnv);
  log(`npm run recover -- --dry-run: ${dryRun.stdout.trim()}`);
  const recovered = await runRecover(["--since", restorePoint], recoverEnv);
  const line = recovered.stdout.split("\n").find((l) => l.startsWith("restored to")) ?? "";
  log(
    `npm run recover (${(recovered.ms / 1000).toFixed(1)} s, exit ${recovered.exitCode}):\n${recovered.stdout.trimEnd()}`,
  );
  if (recovered.exitCode === 2) throw new Error(`npm run recover could not run: ${recovered.stderr.trim()}`);
  const numbers = /(\d+) applied again, (\d+) absorbed as duplicates; drift after: (\d+)/.exec(line);

  const final = await collectObservations({ simUrl: sim.url, hookId, databaseUrl });
  const figures = checkHistory(sent, final);
  const summary: RestoreSummary = {
    options,
    events: { before: before.length, between: between.length, after: after.length },
    afterByType,
    timings: {
      fullBackupMs,
      repositoryBytes,
      restoreMs,
      replayMs,
      appBootMs,
      recoverMs: recovered.ms,
      totalMs: elapsedMs(),
    },
    restorePoint,
    control,
    recover: {
      dryRun: dryRun.stdout.trim(),
      line,
      appliedAgain: numbers ? Number(numbers[1]) : null,
      absorbed: numbers ? Number(numbers[2]) : null,
      drift: numbers ? Number(numbers[3]) : null,
    },
    figures,
    revokedKeysLiveAfter: revokedButLive(final).length,
    rollupsCaughtUp: await rollupsCaughtUp(databaseUrl),
    violations: [],
  };
  summary.violations = restoreViolations(summary, recovered);
  return printVerdict({
    table: formatRestoreReport(summary),
    file: writeRunResults(
      "restore",
      options.quick ? "bench/results/restore-quick.json" : "bench/results/restore.json",
      summary,
    ),
    violations: summary.violations,
    examples: figures.examples,
    passed:
      `the restore lost ${control.lost} acknowledged events (${control.lostRevokes} revokes); ` +
      `npm run recover brought every one back once, and the drift check is clean`,
  });
}

/** Event id → type, read from the database before the disaster (the provider's history has no types). */
const eventTypes = new Map<string, string>();

async function typesOf(databaseUrl: string, ids: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  await withPgClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ event_id: string; type: string }>(
      "SELECT event_id, type FROM processed_events WHERE event_id = ANY($1::text[])",
      [ids],
    );
    for (const row of rows) {
      eventTypes.set(row.event_id, row.type);
      counts[row.type] = (counts[row.type] ?? 0) + 1;
    }
  });
  return counts;
}

async function load(sim: SimulatorProcess, events: number, phase: string): Promise<string[]> {
  const ids = await emitPaced({
    sim,
    events,
    tenants: options.tenants,
    ratePerSecond: options.rate,
    shouldStop: () => false,
  });
  const { stats, drainMs } = await drainSimulator(sim, { timeoutMs: options.drainTimeoutMs, log });
  log(`${phase}: ${ids.length} events, drained in ${(drainMs / 1000).toFixed(1)} s (${stats.messages.failed} failed)`);
  return ids;
}

function revokedButLive(observations: Observations): string[] {
  const ours = new Map(observations.keys.map((k) => [k.id, k.status]));
  return observations.truth.flatMap((tenant) =>
    tenant.keys
      .filter((key) => key.status === "revoked" && ["active", "superseded"].includes(ours.get(key.id) ?? ""))
      .map((key) => key.id),
  );
}

/** `npm run recover` itself, as an operator runs it. */
function runRecover(args: string[], env: Record<string, string>): Promise<RecoverRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "recover", "--", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      resolve({ exitCode: code ?? 2, stdout, stderr, ms: Math.round(performance.now() - started) }),
    );
  });
}

/** The worker runs on the restored database: its rollups fold every claim, the re-applied ones too. */
async function rollupsCaughtUp(databaseUrl: string): Promise<boolean> {
  try {
    await waitFor(
      () =>
        withPgClient(databaseUrl, async (client) => {
          const { rows } = await client.query<{ behind: boolean }>(
            `SELECT coalesce((SELECT max(id) FROM processed_events), 0) >
                    (SELECT folded_id FROM rollup_watermarks WHERE source = 'processed_events') AS behind`,
          );
          return rows[0]?.behind === false;
        }).catch(() => false),
      30_000,
      "",
    );
    return true;
  } catch {
    return false;
  }
}

function restoreViolations(summary: RestoreSummary, recovered: RecoverRun): string[] {
  const found = violations(summary.figures);
  const { control, events } = summary;
  if (control.lost === 0 || control.lostRevokes === 0 || control.revokedKeysLive === 0)
    found.push(
      `the control lost ${control.lost} acknowledged events (${control.lostRevokes} revokes, ${control.revokedKeysLive} revoked keys live): ` +
        "without a loss this run cannot tell a recovery from none",
    );
  if (control.replayed !== events.between)
    found.push(`the restore brought back ${control.replayed} of the ${events.between} events between the backup and T`);
  if ((summary.afterByType["key.rotated"] ?? 0) === 0) found.push("no rotation among the load after the restore point");
  if (recovered.exitCode !== 0) found.push(`npm run recover exited ${recovered.exitCode}: ${recovered.stdout.trim()}`);
  if (summary.recover.drift !== 0) found.push(`drift after the recovery: ${summary.recover.drift ?? "not reported"}`);
  if (summary.recover.appliedAgain !== control.lost)
    found.push(`recover applied ${summary.recover.appliedAgain} again, the restore lost ${control.lost}`);
  if (summary.revokedKeysLiveAfter > 0)
    found.push(`${summary.revokedKeysLiveAfter} revoked keys are live after the recovery`);
  if (!summary.rollupsCaughtUp) found.push("the worker's rollups did not catch up on the restored database");
  return found;
}

function formatRestoreReport(summary: RestoreSummary): string {
  const f = summary.figures;
  const t = summary.timings;
  const c = summary.control;
  const mark = (value: number) => (value === 0 ? "ok" : "FAIL");
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    `events: ${summary.events.before} before the full backup, ${summary.events.between} between it and the restore point, ` +
      `${summary.events.after} after it (${Object.entries(summary.afterByType)
        .map(([type, n]) => `${n} ${type}`)
        .join(", ")})`,
    `full backup ${s(t.fullBackupMs)}; repository ${(t.repositoryBytes / 1024 / 1024).toFixed(1)} MiB; ` +
      `restore ${s(t.restoreMs)} + WAL replay to ${summary.restorePoint} ${s(t.replayMs)}; app boot ${s(t.appBootMs)}`,
    "",
    "the restore alone (the control, must lose)",
    `  acknowledged events lost   ${String(c.lost).padStart(7)}  (${c.lostRevokes} revokes)${c.lost === 0 ? "  FAIL" : ""}`,
    `  revoked keys live again    ${String(c.revokedKeysLive).padStart(7)}${c.revokedKeysLive === 0 ? "  FAIL" : ""}`,
    `  replayed from the archive  ${String(c.replayed).padStart(7)}  of ${summary.events.between}`,
    "",
    `npm run recover (${s(t.recoverMs)}): ${summary.recover.line || "(no result line)"}`,
    "",
    "after the recovery",
    `  sent / acknowledged        ${String(f.sent).padStart(7)} / ${f.acknowledged}`,
    `  lost                       ${String(f.lost).padStart(7)}  ${mark(f.lost)}`,
    `  applied twice              ${String(f.appliedTwice).padStart(7)}  ${mark(f.appliedTwice)}`,
    `  >1 active key per tenant   ${String(f.tenantsWithSeveralActiveKeys).padStart(7)}  ${mark(f.tenantsWithSeveralActiveKeys)}`,
    `  revoked keys live          ${String(summary.revokedKeysLiveAfter).padStart(7)}  ${mark(summary.revokedKeysLiveAfter)}`,
    `  keys unlike the provider's ${String(f.keyMismatches).padStart(7)}  ${mark(f.keyMismatches)}`,
    `  drift after                ${String(summary.recover.drift ?? "—").padStart(7)}  ${summary.recover.drift === 0 ? "ok" : "FAIL"}`,
    `  claims without receipt     ${String(f.claimsWithoutReceipt).padStart(7)}  ${mark(f.claimsWithoutReceipt)}`,
    `  worker's rollups caught up ${summary.rollupsCaughtUp ? "    yes" : "     NO"}`,
    "",
    `whole run ${s(t.totalMs)}`,
  ].join("\n");
}

await run(main);
