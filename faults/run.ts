// `npm run test:faults`: a Jepsen-style set test of the webhook ingest.
// The provider simulator emits N unique key events and delivers them at least once, with
// duplicates, reordering and dropped answers, through a proxy that holds some of the app's
// responses past the sender's timeout; meanwhile the nemesis SIGKILLs the production app at
// random moments — aimed alternately just after a commit (faults/commit-signal.ts) and during a
// request — starts it again, and restarts PostgreSQL. When the sender has nothing left
// to retry, the checker compares what was sent and acknowledged with what was committed, and the
// final key states with the provider's truth. Exit 0 only when nothing was lost, nothing applied
// twice and every key matches; 1 on a violation; 2 when the harness itself failed.
// Options: faults/options.ts (`--quick` is the CI profile). Processes and files: ports 4560–4562
// and 54560, data in .data/h-faults/ (app.log is the app's output, app/ the copy of the build).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEV_PROVIDER_API_KEY, DEV_WEBHOOK_SECRET } from "../lib/core/config/env";
import { createProviderClient } from "../lib/operations/provider/client";
import { seededRandom } from "../simulator/faults";
import { startSimulator } from "../test/support/simulator";
import { createAppProcess } from "./app-process";
import { snapshotProductionBuild } from "./build-snapshot";
import { checkHistory, violations } from "./check-history";
import { collectObservations } from "./collect-observations";
import { drainSimulator } from "./drain";
import { installCommitSignal, nextCommit } from "./commit-signal";
import { startDatabaseServer } from "./database-server";
import { assertPortsFree } from "./free-ports";
import { startNemesis } from "./nemesis";
import { readFaultRunOptions } from "./options";
import { formatTable, printVerdict, writeResults, type RunSummary } from "./report";
import { startSlowResponseProxy } from "./slow-response-proxy";
import { startHarness } from "./harness";
import { emitPaced } from "./workload";

const { options, log, elapsedMs, onCleanup, run } = startHarness("faults", () =>
  readFaultRunOptions(process.argv.slice(2), process.env),
);

async function main(): Promise<number> {
  await assertPortsFree({ app: options.appPort, simulator: options.simPort, proxy: options.proxyPort });
  const root = path.resolve(options.dataDir);
  mkdirSync(root, { recursive: true });
  const { appDir, buildId } = await snapshotProductionBuild({ dir: path.join(root, "app"), log });
  log(`running the production build ${buildId} from a private copy (${path.relative(process.cwd(), appDir)})`);
  const simDir = path.join(root, "sim");
  rmSync(simDir, { recursive: true, force: true });
  const logFile = path.join(root, "app.log");
  writeFileSync(logFile, "");
  const random = seededRandom(options.seed);
  log(
    `seed ${options.seed}: ${options.events} events, ${options.tenants} tenants, ${options.rate}/s; ` +
      `kill every ${options.killMinMs}–${options.killMaxMs} ms, ${options.pgRestarts} PostgreSQL restarts, ${options.slowResponseRate * 100}% responses held`,
  );

  const database = await startDatabaseServer({
    dataDir: path.join(root, "postgres"),
    port: options.pgPort,
    onUnexpectedExit: (reason) => log(`PostgreSQL died unexpectedly: ${reason}`),
  });
  onCleanup(() => database.stop());
  await installCommitSignal(database.databaseUrl);

  const app = createAppProcess({
    port: options.appPort,
    databaseUrl: database.databaseUrl,
    webhookSecret: DEV_WEBHOOK_SECRET,
    logFile,
    appDir,
  });
  onCleanup(() => app.stop());
  const firstBoot = await app.start();
  log(`app started (${firstBoot.bootMs} ms)`);

  const proxy = await startSlowResponseProxy({
    port: options.proxyPort,
    target: { host: "127.0.0.1", port: options.appPort },
    rate: options.slowResponseRate,
    // Twice the sender's patience: it gives up, the app has long committed.
    holdMs: options.deliveryTimeoutMs * 2,
    random,
  });
  onCleanup(() => proxy.close());

  const sim = await startSimulator({
    dataDir: simDir,
    env: {
      PROVIDER_SIM_PORT: String(options.simPort),
      PROVIDER_SIM_SEED: String(options.seed),
      PROVIDER_SIM_TIME_SCALE: String(options.timeScale),
      PROVIDER_SIM_DELIVERY_TIMEOUT_MS: String(options.deliveryTimeoutMs),
      PROVIDER_SIM_CONCURRENCY: "8",
    },
  });
  onCleanup(() => sim.kill("SIGTERM"));
  const client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
  const { hookId } = await client.registerWebhook({
    url: `http://127.0.0.1:${proxy.port}/api/webhooks/keys`,
    idempotencyKey: `faults-${options.seed}`,
  });
  await sim.setFaults({
    duplicateRate: options.duplicateRate,
    reorderRate: options.reorderRate,
    reorderDelayMs: options.reorderDelayMs,
    lostResponseRate: options.lostResponseRate,
  });

  const windowMs = (options.events / options.rate) * 1000;
  const nemesis = startNemesis({
    app,
    database,
    random,
    killMinMs: options.killMinMs,
    killMaxMs: options.killMaxMs,
    pgRestarts: options.pgRestarts,
    pgDownMs: options.pgDownMs,
    windowMs,
    nextDelivery: () => proxy.nextRequest(),
    nextCommit: (timeoutMs) => nextCommit(database.databaseUrl, timeoutMs),
    log,
  });
  const emitStarted = performance.now();
  const sentIds = await emitPaced({
    sim,
    events: options.events,
    tenants: options.tenants,
    ratePerSecond: options.rate,
    shouldStop: () => nemesis.failure() !== null,
  });
  const emitMs = Math.round(performance.now() - emitStarted);
  log(`emitted ${sentIds.length} events in ${(emitMs / 1000).toFixed(1)} s; stopping the nemesis`);
  // Throws when the app could not be brought back: then there is nothing to check.
  await nemesis.stop();

  const { stats, drainMs } = await drainSimulator(sim, { timeoutMs: options.drainTimeoutMs, log });
  log(
    `drained in ${(drainMs / 1000).toFixed(1)} s: ${stats.messages.succeeded} delivered, ${stats.messages.failed} failed; checking`,
  );

  const observations = await collectObservations({ simUrl: sim.url, hookId, databaseUrl: database.databaseUrl });
  const figures = checkHistory(sentIds, observations);
  const boots = [
    firstBoot.bootMs,
    ...nemesis.records.filter((r) => r.kind === "app-started").map((r) => r.detail.bootMs!),
  ];
  const summary: RunSummary = {
    options,
    figures,
    faults: {
      appKills: nemesis.records.filter((r) => r.kind === "app-killed").length,
      pgRestarts: nemesis.records.filter((r) => r.kind === "pg-restarted").length,
      heldResponses: proxy.stats().heldResponses,
      records: nemesis.records,
    },
    simulator: {
      duplicates: stats.attempts.duplicate,
      reordered: stats.attempts.reordered,
      lostResponses: stats.attempts.lost_response,
    },
    timings: {
      emitMs,
      drainMs,
      totalMs: elapsedMs(),
      meanBootMs: Math.round(boots.reduce((a, b) => a + b, 0) / boots.length),
    },
    violations: [],
  };
  summary.violations = violations(figures);
  if (summary.faults.appKills === 0 && options.killMaxMs > 0)
    summary.violations.push("no app kill happened: the run was too short for the kill interval");

  return printVerdict({
    table: formatTable(summary),
    file: writeResults(summary),
    violations: summary.violations,
    examples: figures.examples,
    passed: "nothing lost, nothing applied twice, every key matches the provider",
  });
}

await run(main);
