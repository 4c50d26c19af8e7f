// The launcher behind `npm run dev` (boot.ts dev) and `npm start` (boot.ts start):
//   settings → database (embedded PostgreSQL when DATABASE_URL is unset) → migrations →
//   demo seed (dev only) → `next dev`, or for start the production server of server/serve.ts
//   (Next's custom-server API; drains requests in flight on SIGTERM), with DATABASE_URL set.
// It owns the lifecycle so that `next build` never needs a database and a dev-server restart
// does not restart PostgreSQL. On SIGINT/SIGTERM it stops Next first, then PostgreSQL, and
// exits with Next's code. npm scripts must `exec` it: `sh -c` would not forward SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import path from "node:path";
import nextEnv from "@next/env"; // CommonJS without detectable named exports
import { parseEnv, type Env } from "../lib/env";
import { startOrphanGuard } from "../tooling/dev/orphan-guard";
import { packageBin } from "../tooling/package-bin";
import { prepareDatabase, type PreparedDatabase } from "../tooling/dev/prepare-database";
import { startDevCompanions, type DevCompanions } from "../tooling/dev/dev-companions";
import { DEMO_PASSWORD, DEMO_USERS } from "../lib/auth/demo-users";
import { withServerNodeOptions } from "../server/server-node-options";
import { runStartupChecks } from "../server/startup-checks";

type Mode = "dev" | "start";

/** Only what the launcher needs; lib/env.ts validates every setting and words the error. */
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
  const where = database.embedded
    ? `embedded PostgreSQL on port ${database.embedded.port} (${database.embedded.dataDir}${database.embedded.owned ? "" : ", shared with another launcher"})`
    : "DATABASE_URL";
  const applied = database.applied.length ? `applied ${database.applied.join(", ")}` : "no pending migrations";
  console.log(`keyhook: database ready: ${where}; ${applied} (${Math.round(performance.now() - started)} ms)`);
  // The checks every process runs at start (server/startup-checks.ts), on the database just prepared.
  process.env.DATABASE_URL = database.databaseUrl;
  for (const notice of await runStartupChecks({ ...config.env, DATABASE_URL: database.databaseUrl }))
    console.log(`keyhook: ${notice}`);

  const childEnv = { ...process.env, DATABASE_URL: database.databaseUrl, NEXT_TELEMETRY_DISABLED: "1" };
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
  const serverEnv = { ...childEnv, PORT: String(config.port) };
  const child = spawn(process.execPath, serverArgs, {
    env: mode === "dev" ? serverEnv : withServerNodeOptions(serverEnv),
    stdio: "inherit",
    // Its own process group: we signal the whole group (next dev runs a worker process too),
    // and a terminal Ctrl-C reaches only us, so the order of the shutdown stays ours.
    detached: true,
  });
  next = child;
  // The provider simulator and the outbox worker (dev; see tooling/dev/dev-companions.ts).
  companions = startDevCompanions({ mode, appPort: config.port, config: config.env, env: childEnv });
  const owned = database.embedded?.owned ? database.embedded.pid : undefined;
  guard = startOrphanGuard({ nextGroup: child.pid, postmaster: owned });
  child.on("exit", (code, signal) => {
    // Next stopped on its own (crash, port in use): stop PostgreSQL and leave with its code.
    if (!shuttingDown) void shutdown(code ?? 128 + signalNumber(signal));
  });
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
}
