// The launcher behind `npm run dev` (boot.ts dev) and `npm start` (boot.ts start):
//   start: settings → database (embedded PostgreSQL when DATABASE_URL is unset) → migrations →
//   the production server of server/serve.ts (Next's custom-server API; drains requests in
//   flight on SIGTERM), with DATABASE_URL set.
//   dev: settings → `next dev` and the warm-up of the first pages, beside database → migrations
//   → demo seed; then the app's connections may go (docs/decisions/0030-dev-start.md).
// It owns the lifecycle so that `next build` never needs a database and a dev-server restart
// does not restart PostgreSQL. On SIGINT/SIGTERM it stops Next first, then PostgreSQL, and
// exits with Next's code. npm scripts must `exec` it: `sh -c` would not forward SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import path from "node:path";
import nextEnv from "@next/env"; // CommonJS without detectable named exports
import { parseEnv, type Env } from "../lib/core/config/env";
import { startOrphanGuard } from "../tooling/dev/orphan-guard";
import { packageBin } from "../tooling/package-bin";
import { prepareDatabase, type PreparedDatabase } from "../tooling/dev/prepare-database";
import { startDevCompanions, type DevCompanions } from "../tooling/dev/dev-companions";
import { plannedEmbeddedUrl } from "../tooling/dev/embedded-postgres";
import { warmUp, type WarmUp } from "../tooling/dev/warm-up";
import { DEMO_PASSWORD, DEMO_TOTP_SECRET, DEMO_USERS } from "../lib/operations/demo/demo-data";
import { withServerNodeOptions } from "../server/server-node-options";
import { runStartupChecks } from "../server/startup-checks";

type Mode = "dev" | "start";

/** Only what the launcher needs; lib/core/config/env.ts validates every setting and words the error. */
function readBootConfig(mode: Mode): {
  port: number;
  databaseUrl?: string;
  directDatabaseUrl?: string;
  migrationLockTimeoutMs: number;
  dataDir?: string;
  pgPort?: number;
  seedDemo: boolean;
  env: Env;
} {
  // The same .env files, in the same precedence, that Next will load for the app.
  nextEnv.loadEnvConfig(process.cwd(), mode === "dev", { info: () => {}, error: console.error });
  // Validated as Next will run: `next start` is production (WEBHOOK_SECRETS required).
  const env = parseEnv({ ...process.env, NODE_ENV: mode === "dev" ? "development" : "production" });
  return {
    port: env.PORT,
    databaseUrl: env.DATABASE_URL,
    directDatabaseUrl: env.DIRECT_DATABASE_URL,
    migrationLockTimeoutMs: env.MIGRATION_LOCK_TIMEOUT_MS,
    dataDir: env.KEYHOOK_DATA_DIR,
    pgPort: env.KEYHOOK_PG_PORT,
    seedDemo: mode === "dev" || env.KEYHOOK_SEED_DEMO === "1",
    env,
  };
}

const mode: Mode = process.argv[2] === "dev" || process.argv[2] === "start" ? process.argv[2] : usage();

function usage(): never {
  console.error("usage: boot.ts dev|start");
  process.exit(2);
}

let config: ReturnType<typeof readBootConfig>;
try {
  config = readBootConfig(mode);
} catch (error) {
  // One line, no stack: `keyhook: invalid setting NAME: reason`.
  console.error(`keyhook: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

let database: PreparedDatabase | undefined;
let next: ChildProcess | undefined;
let companions: DevCompanions | undefined;
let guard: { dismiss(): void } | undefined;
let shuttingDown = false;
// Aborted by a signal: a replica waiting for another one's migrations stops waiting at once.
const stopRequested = new AbortController();
// dev: created once the database is ready; the app's connections wait for it (lib/core/db/dev-ready-gate.ts).
const devReadyFile = mode === "dev" ? path.join(tmpdir(), `keyhook-dev-ready-${process.pid}`) : undefined;

// Registered before anything starts: a Ctrl-C during migrations must still stop PostgreSQL.
const startup = boot();
process.on("SIGINT", () => void shutdown(130));
process.on("SIGTERM", () => void shutdown(143));
process.on("SIGHUP", () => void shutdown(129));
startup.catch(async (error: unknown) => {
  // After a Ctrl-C the seed or migration was interrupted on purpose: nothing to report.
  if (!shuttingDown) console.error(`keyhook: ${error instanceof Error ? error.message : String(error)}`);
  await shutdown(1, { failed: true });
});

async function boot(): Promise<void> {
  const started = performance.now();
  const since = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  // dev: next dev starts now, beside PostgreSQL, the migrations and the seed (its first compile
  // takes as long as they do), on the database URL known before the server is up; its connections
  // wait until the ready file exists (lib/core/db/dev-ready-gate.ts). Meanwhile the first pages compile.
  let dev: { readyFile: string; databaseUrl: string; warm: WarmUp } | undefined;
  if (devReadyFile) {
    const databaseUrl =
      config.databaseUrl || (await plannedEmbeddedUrl({ dataDir: config.dataDir, port: config.pgPort }));
    // Before anything here reads the settings (env() keeps what it read first).
    process.env.DATABASE_URL = databaseUrl;
    startServer(databaseUrl, { KEYHOOK_DEV_READY_FILE: devReadyFile });
    const warm = warmUp({ baseUrl: `http://127.0.0.1:${config.port}`, signal: stopRequested.signal });
    dev = { readyFile: devReadyFile, databaseUrl, warm };
  }
  database = await prepareDatabase({
    databaseUrl: config.databaseUrl,
    directDatabaseUrl: config.directDatabaseUrl,
    migrationLockTimeoutMs: config.migrationLockTimeoutMs,
    signal: stopRequested.signal,
    dataDir: config.dataDir,
    port: config.pgPort,
    onUnexpectedExit: (reason) => {
      console.error(`keyhook: ${reason}`);
      void shutdown(1, { failed: true });
    },
  });
  if (dev && database.databaseUrl !== dev.databaseUrl)
    throw new Error(`the database came up at ${database.databaseUrl}, not ${dev.databaseUrl} as next dev was told`);
  const where = database.embedded
    ? `embedded PostgreSQL on port ${database.embedded.port} (${database.embedded.dataDir}${database.embedded.owned ? "" : ", shared with another launcher"})`
    : "DATABASE_URL";
  const applied = database.applied.length ? `applied ${database.applied.join(", ")}` : "no pending migrations";
  console.log(`keyhook: database ready: ${where}; ${applied} (${since()})`);
  // The checks every process runs at start (server/startup-checks.ts), on the database just prepared.
  process.env.DATABASE_URL = database.databaseUrl;
  for (const notice of await runStartupChecks({ ...config.env, DATABASE_URL: database.databaseUrl }))
    console.log(`keyhook: ${notice}`);

  const childEnv = childEnvFor(database.databaseUrl);
  if (config.seedDemo && existsSync("scripts/seed.ts") && !shuttingDown) {
    const code = await runToEnd(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "scripts/seed.ts"],
      childEnv,
    );
    if (code !== 0) throw new Error(`scripts/seed.ts exited with code ${code}`);
    printDemoUsers();
  }
  if (shuttingDown) return;

  if (dev) writeFileSync(dev.readyFile, "");
  else startServer(database.databaseUrl);
  // The provider simulator and the outbox worker (dev; see tooling/dev/dev-companions.ts).
  companions = startDevCompanions({ mode, appPort: config.port, config: config.env, env: childEnv });
  const owned = database.embedded?.owned ? database.embedded.pid : undefined;
  guard = startOrphanGuard({ nextGroup: next!.pid, postmaster: owned });
  if (dev) void reportWarmUp(dev.warm, since);
}

/** The environment of every child process: ours, the database's URL, no telemetry. */
function childEnvFor(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: "1", ...extra };
}

function startServer(databaseUrl: string, extra: Record<string, string> = {}): void {
  const nextBin = packageBin("next");
  // Without the react-server condition: Next resolves React's server build where it needs it.
  // `npm start`: the server bundled with the build (.next/keyhook-serve.mjs, plain JavaScript:
  // under tsx's loader hooks every import() Next makes per request costs a round trip to tsx's
  // hooks thread), else server/serve.ts through tsx. The source is found beside this file, not
  // under the working directory: the build served is the one in the working directory
  // (`.next`), which may be a copy holding nothing else (faults/build-snapshot.ts).
  const bundledServer = path.resolve(".next", "keyhook-serve.mjs");
  const serverArgs =
    mode === "dev"
      ? [nextBin, "dev", "-p", String(config.port)]
      : existsSync(bundledServer)
        ? [bundledServer]
        : ["--import", "tsx", path.join(import.meta.dirname, "serve.ts")];
  const serverEnv = childEnvFor(databaseUrl, { ...extra, PORT: String(config.port) });
  const child = spawn(process.execPath, serverArgs, {
    env: mode === "dev" ? serverEnv : withServerNodeOptions(serverEnv),
    stdio: "inherit",
    // Its own process group: we signal the whole group (next dev runs a worker process too),
    // and a terminal Ctrl-C reaches only us, so the order of the shutdown stays ours.
    detached: true,
  });
  next = child;
  child.on("exit", (code, signal) => {
    // Next stopped on its own (crash, port in use): stop PostgreSQL and leave with its code.
    if (!shuttingDown) void shutdown(code ?? 128 + signalNumber(signal));
  });
}

/** A few lines: when the first pages are ready and where to go, and on a slow start what is still compiling. */
async function reportWarmUp(warm: WarmUp, since: () => string): Promise<void> {
  const slow = setInterval(() => {
    const pending = warm.pending();
    if (pending.length) console.log(`keyhook: still compiling the first pages (${since()}): ${pending.join(", ")}`);
  }, 10_000);
  await warm.done;
  clearInterval(slow);
  if (shuttingDown) return;
  console.log(
    `keyhook: ready (${since()}): open http://localhost:${config.port} and sign in as admin@keyhook.test; the simulator's events show on the Overview`,
  );
}

/** `code` when Next has not started (or `failed`: our failure outranks Next's clean exit). */
async function shutdown(code: number, options: { failed?: boolean } = {}): Promise<void> {
  if (shuttingDown) return; // npm forwards the terminal's SIGINT too: one shutdown only
  shuttingDown = true;
  stopRequested.abort();
  guard?.dismiss();
  if (next) {
    const nextCode = await stopProcessGroup(next, code);
    if (!options.failed) code = nextCode;
  }
  await companions?.stop(); // before PostgreSQL: the worker still uses it
  await startup.catch(() => {}); // a half-started database is stopped once its start settles
  if (devReadyFile) rmSync(devReadyFile, { force: true });
  try {
    await database?.stop();
  } catch (error) {
    console.error(`keyhook: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(code);
}

/** SIGTERM to Next's group, SIGKILL once its drain bound (+5 s) has passed; resolves with Next's exit code. */
async function stopProcessGroup(child: ChildProcess, fallbackCode: number): Promise<number> {
  const group = child.pid!;
  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  signalGroup(group, "SIGTERM");
  const inTime = await Promise.race([
    exited.then(() => true),
    delay(config.env.SHUTDOWN_DRAIN_MS + 5_000).then(() => false),
  ]);
  // Next's main process may exit before its workers: wait for the whole group to be gone.
  const deadline = Date.now() + (inTime ? 5_000 : 0);
  while (groupAlive(group) && Date.now() < deadline) await delay(50);
  if (groupAlive(group)) signalGroup(group, "SIGKILL");
  await exited;
  return child.exitCode ?? (child.signalCode === "SIGTERM" ? fallbackCode : 128 + signalNumber(child.signalCode));
}

function runToEnd(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(code ?? 128 + signalNumber(signal)));
  });
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // ESRCH: already gone
  }
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? (constants.signals[signal] ?? 0) : 0;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function printDemoUsers(): void {
  const lines = DEMO_USERS.map((u) => `  ${u.email.padEnd(28)} ${u.role}${u.tenantId ? ` (${u.tenantId})` : ""}`);
  console.log(`keyhook: demo sign-ins (password "${DEMO_PASSWORD}"):\n${lines.join("\n")}`);
  // The staff accounts must prove a second factor: any authenticator app takes this key.
  console.log(
    `keyhook: demo authenticator key of the staff accounts: ${DEMO_TOTP_SECRET} (otpauth://totp/Keyhook:demo?secret=${DEMO_TOTP_SECRET}&issuer=Keyhook)`,
  );
}
