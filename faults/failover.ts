// `npm run test:failover`: signed key events under load while the PostgreSQL primary fails over,
// on the topology docs/failover.md describes (Patroni + etcd + HAProxy, synchronous replication,
// test/support/patroni-cluster.ts), then the same failover with asynchronous replication, the
// unsafe control, which must lose acknowledged events for the run to mean anything.
//
// The provider simulator delivers N events at concurrency c (with its retries); K times during
// the emission the primary's WAL stream freezes (the standby falls behind) and the primary dies
// (faults/failover-nemesis.ts). The production build runs with its worker; a signed-in admin
// keeps loading a dashboard page. After the drain the checker (faults/check-history.ts) compares
// what the simulator was told with what the new primary holds.
// Exit 0 when the synchronous run lost nothing acknowledged, applied nothing twice, left one
// active key per tenant, answered no 5xx but 503, kept its worker and dashboard, AND the control
// lost something; 1 on a violation; 2 when the harness itself failed.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEV_PROVIDER_API_KEY, DEV_WEBHOOK_SECRET } from "../lib/core/config/env";
import { createProviderClient, type ProviderDeliveryAttempt } from "../lib/operations/provider/client";
import { registrationIdempotencyKey } from "../lib/operations/provider/webhook-registration";
import { findFailoverTools, startPatroniCluster, waitFor, type PatroniCluster } from "../test/support/patroni-cluster";
import { withPgClient } from "../test/support/pg-client";
import { startSimulator, type SimulatorProcess } from "../test/support/simulator";
import { createAppProcess } from "./app-process";
import { snapshotProductionBuild } from "./build-snapshot";
import { checkHistory, violations } from "./check-history";
import { collectObservations } from "./collect-observations";
import { watchDashboard, type DashboardFigures } from "./dashboard-watch";
import { drainSimulator } from "./drain";
import { failOver, type FailoverKind, type FailoverRecord } from "./failover-nemesis";
import { readFailoverRunOptions } from "./failover-options";
import {
  formatFailoverReport,
  writeFailoverResults,
  type FailoverSummary,
  type RecoveredFailover,
} from "./failover-report";
import { assertPortsFree } from "./free-ports";
import { printVerdict } from "./report";
import { seedPlatformAdmin } from "./platform-admin";
import { startHarness } from "./harness";
import { emitPaced } from "./workload";

const { options, log, elapsedMs, onCleanup, run } = startHarness("failover", () =>
  readFailoverRunOptions(process.argv.slice(2), process.env),
);

const DATABASE = "keyhook";

async function main(): Promise<number> {
  const tools = findFailoverTools();
  if (!tools.ok) throw new Error(tools.reason);
  await assertPortsFree({ app: options.appPort, simulator: options.simPort });
  const root = path.resolve(options.dataDir);
  mkdirSync(root, { recursive: true });
  const { appDir, buildId } = await snapshotProductionBuild({ dir: path.join(root, "app"), log });
  const logFile = path.join(root, "app.log");
  writeFileSync(logFile, "");
  log(
    `seed ${options.seed}: ${options.events} events at ${options.rate}/s, concurrency ${options.concurrency}, ` +
      `${options.failovers} failover(s) (${options.kind}), WAL frozen ${options.freezeMs} ms before each; control ${options.controlEvents} events`,
  );

  const clusterStarted = performance.now();
  const cluster = await startPatroniCluster({
    basePort: options.basePort,
    nodes: options.nodes,
    synchronous: true,
    log,
  });
  onCleanup(() => cluster.stop());
  const setupMs = Math.round(performance.now() - clusterStarted);
  log(
    `Patroni cluster of ${options.nodes} up in ${(setupMs / 1000).toFixed(1)} s (synchronous, strict); ${cluster.dir}`,
  );
  await withPgClient(cluster.primaryUrl("postgres"), (client) => client.query(`CREATE DATABASE ${DATABASE}`));
  const databaseUrl = cluster.primaryUrl(DATABASE);

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

  const app = createAppProcess({
    port: options.appPort,
    databaseUrl,
    webhookSecret: DEV_WEBHOOK_SECRET,
    logFile,
    appDir,
    env: {
      KEYHOOK_WITH_WORKER: "1",
      PROVIDER_URL: sim.url,
      DRIFT_CHECK_INTERVAL_HOURS: "0",
      ROLLUP_INTERVAL_MS: "1000",
    },
  });
  onCleanup(() => app.stop());
  const boot = await app.start();
  log(`app ${buildId} started with its worker (${boot.bootMs} ms)`);

  // The worker registers the app's endpoint too (PROVIDER_WEBHOOK_URL, set by the launcher): the
  // same URL and idempotency key make it ONE hook. A second hook would deliver every event again
  // and could heal a loss the checker must see.
  const client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
  const webhookUrl = `http://127.0.0.1:${options.appPort}/api/webhooks/keys`;
  const { hookId } = await client.registerWebhook({
    url: webhookUrl,
    idempotencyKey: registrationIdempotencyKey(webhookUrl),
  });
  const dashboard = await watchDashboard({
    baseUrl: app.baseUrl,
    path: "/overview",
    email: await seedPlatformAdmin(databaseUrl),
    intervalMs: 500,
  });

  // The synchronous run.
  const kinds: FailoverKind[] = Array.from({ length: options.failovers }, (_, i) =>
    options.kind === "mixed" ? (i % 2 === 0 ? "crash" : "node") : options.kind,
  );
  const safe = await loadWithFailovers({ cluster, sim, events: options.events, kinds, phase: "synchronous" });
  const dashboardFigures = await dashboard.stop();
  const observed = await collectObservations({ simUrl: sim.url, hookId, databaseUrl });
  const figures = checkHistory(safe.sentIds, observed);
  const failovers = recoveries(safe.records, observed.attempts);
  const badStatuses = otherServerErrors(observed.attempts);
  const worker = await workerFigures({ databaseUrl, logFile });

  // The unsafe control: the same cluster, replication switched to asynchronous.
  let control: FailoverSummary["control"] = null;
  if (options.controlEvents > 0) {
    await cluster.setSynchronous(false);
    log("replication is now asynchronous: the unsafe control");
    const run = await loadWithFailovers({
      cluster,
      sim,
      events: options.controlEvents,
      kinds: ["crash"],
      phase: "asynchronous control",
    });
    const controlObserved = await collectObservations({ simUrl: sim.url, hookId, databaseUrl });
    const controlFigures = checkHistory(run.sentIds, controlObserved);
    control = {
      sent: controlFigures.sent,
      acknowledged: controlFigures.acknowledged,
      lost: controlFigures.lost,
      lostExamples: controlFigures.examples.lost,
      failover: recoveries(run.records, controlObserved.attempts)[0] ?? null,
    };
  }

  const hooks = (await sim.stats()).hooks;
  const summary: FailoverSummary = {
    options,
    hooks,
    setupMs,
    figures,
    failovers,
    otherServerErrors: badStatuses,
    dashboard: dashboardFigures,
    worker,
    control,
    totalMs: elapsedMs(),
    violations: [],
  };
  summary.violations = failoverViolations(summary);
  return printVerdict({
    table: formatFailoverReport(summary),
    file: writeFailoverResults(summary),
    violations: summary.violations,
    examples: figures.examples,
    passed: `nothing acknowledged was lost across ${failovers.length} failover(s); the asynchronous control lost ${control?.lost ?? "—"}`,
  });
}

/** Emits `events` at the run's pace, failing over at evenly spaced moments, then drains. */
async function loadWithFailovers(run: {
  cluster: PatroniCluster;
  sim: SimulatorProcess;
  events: number;
  kinds: FailoverKind[];
  phase: string;
}): Promise<{ sentIds: string[]; records: FailoverRecord[] }> {
  const windowMs = (run.events / options.rate) * 1000;
  const started = Date.now();
  const records: FailoverRecord[] = [];
  let failure: unknown = null;
  const nemesis = (async () => {
    for (const [i, kind] of run.kinds.entries()) {
      const at = started + (windowMs * (i + 1)) / (run.kinds.length + 1);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
      log(`${run.phase}: failover ${i + 1}/${run.kinds.length} (${kind})`);
      records.push(await failOver(run.cluster, { kind, freezeMs: options.freezeMs, log }));
    }
  })().catch((error: unknown) => {
    failure = error;
  });
  const sentIds = await emitPaced({
    sim: run.sim,
    events: run.events,
    tenants: options.tenants,
    ratePerSecond: options.rate,
    shouldStop: () => failure !== null,
  });
  await nemesis;
  if (failure) throw failure;
  log(`${run.phase}: emitted ${sentIds.length} events; draining`);
  const { stats, drainMs } = await drainSimulator(run.sim, { timeoutMs: options.drainTimeoutMs, log });
  log(
    `${run.phase}: drained in ${(drainMs / 1000).toFixed(1)} s (${stats.messages.succeeded} delivered, ${stats.messages.failed} failed)`,
  );
  return { sentIds, records };
}

/** When ingest answered 2xx again after each failover, from the simulator's own history. */
function recoveries(records: FailoverRecord[], attempts: ProviderDeliveryAttempt[]): RecoveredFailover[] {
  const answered = attempts
    .filter((a) => a.succeeded)
    .map((a) => new Date(a.at).getTime() + a.durationMs)
    .sort((a, b) => a - b);
  return records.map((record) => {
    // After the promotion: a commit the standby confirmed just before the kill may still answer
    // 200 in between (durable, but not a sign of recovery).
    const after = record.promotedAt ?? record.killedAt;
    const firstOk = answered.find((t) => t > after) ?? null;
    return {
      ...record,
      firstOkAt: firstOk,
      promotedToOkMs: firstOk !== null && record.promotedAt !== null ? firstOk - record.promotedAt : null,
      killedToOkMs: firstOk !== null ? firstOk - record.killedAt : null,
    };
  });
}

/** 5xx answers other than 503: a failure the sender cannot tell from a bug. */
function otherServerErrors(attempts: ProviderDeliveryAttempt[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of attempts)
    if (a.statusCode !== null && a.statusCode >= 500 && a.statusCode !== 503)
      counts[a.statusCode] = (counts[a.statusCode] ?? 0) + 1;
  return counts;
}

/** The worker beside the app: did the rollups catch up on the new primary, and did it stay up? */
async function workerFigures(run: { databaseUrl: string; logFile: string }): Promise<FailoverSummary["worker"]> {
  let caughtUp = true;
  try {
    await waitFor(
      () =>
        withPgClient(run.databaseUrl, async (client) => {
          const { rows } = await client.query<{ behind: boolean }>(
            `SELECT coalesce((SELECT max(id) FROM processed_events), 0) >
                    (SELECT folded_id FROM rollup_watermarks WHERE source = 'processed_events') AS behind`,
          );
          return rows[0]?.behind === false;
        }).catch(() => false),
      30_000,
      "",
    );
  } catch {
    caughtUp = false;
  }
  const lines = readFileSync(run.logFile, "utf8");
  return {
    rollupsCaughtUp: caughtUp,
    queueRestarts: (lines.match(/job queue running again/g) ?? []).length,
    workerExits: (lines.match(/"msg":"worker (stopped|could not start)"/g) ?? []).length,
  };
}

function failoverViolations(summary: FailoverSummary): string[] {
  const found = violations(summary.figures);
  if (summary.hooks !== 1) found.push(`the simulator delivered to ${summary.hooks} hooks (one expected)`);
  const other = Object.entries(summary.otherServerErrors);
  if (other.length > 0)
    found.push(`answered ${other.map(([s, n]) => `${n}× ${s}`).join(", ")} (only 503 may say "retry")`);
  const d: DashboardFigures = summary.dashboard;
  if (d.leaks.length > 0) found.push(`the dashboard showed internals ${d.leaks.length} time(s)`);
  if (!d.recovered) found.push("the dashboard did not recover by itself");
  if (!summary.worker.rollupsCaughtUp) found.push("the worker's rollups did not catch up on the new primary");
  if (summary.worker.workerExits > 0) found.push("the worker process exited during the run");
  if (summary.failovers.some((f) => f.firstOkAt === null))
    found.push("ingest did not answer 2xx again after a failover");
  if (summary.control && summary.control.lost === 0)
    found.push("the asynchronous control lost nothing: this run cannot tell a safe setup from an unsafe one");
  return found;
}

await run(main);
