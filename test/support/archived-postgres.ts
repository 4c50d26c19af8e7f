// A PostgreSQL 15 from Debian's packages whose WAL is archived into a local pgBackRest repository,
// set up the way docs/backup.md tells an operator to (archive_command = pgBackRest's archive-push,
// an encrypted repository on another path than the data directory), for the backup readiness
// tests, `npm run test:restore` and the backup benchmark. Everything lives under one folder:
//
//   <dir>/pgdata          the data directory (the disaster removes it)
//   <dir>/repo            the pgBackRest repository (on a real host: another disk or object store)
//   <dir>/pgbackrest.conf its configuration; <dir>/log, <dir>/lock, <dir>/run (the socket)
//
// As root, PostgreSQL and pgbackrest run as the `postgres` user (PostgreSQL refuses root).
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { withPgClient } from "./pg-client";

const BIN = process.env.DEBIAN_PG_BIN ?? "/usr/lib/postgresql/15/bin";
const PGBACKREST = "/usr/bin/pgbackrest";
export const ARCHIVE_PACKAGES = "pgbackrest postgresql-15";
const run = promisify(execFile);

/** Null when it can run, else why not. */
export function archivedPostgresMissing(): string | null {
  const missing = [path.join(BIN, "pg_ctl"), PGBACKREST].filter((file) => !existsSync(file));
  return missing.length === 0 ? null : `${missing.join(", ")} missing (apt-get install ${ARCHIVE_PACKAGES})`;
}

export type BackupType = "full" | "diff" | "incr";

export type ArchivedPostgres = {
  dir: string;
  dataDir: string;
  repoDir: string;
  configFile: string;
  stanza: string;
  port: number;
  /** A URL of `database` as the superuser. */
  url(database: string): string;
  /** Runs pgbackrest with this configuration and stanza (as the database's OS user). */
  pgbackrest(args: string[]): Promise<string>;
  backup(type: BackupType): Promise<{ ms: number }>;
  /** `pgbackrest info --output=json`, parsed. */
  info(): Promise<unknown>;
  /** Closes the current WAL segment and waits until the archiver has it (or failed on it). */
  switchWal(options?: { timeoutMs?: number }): Promise<string>;
  /** ALTER SYSTEM archive_command (null: back to pgBackRest's archive-push) and reload. */
  setArchiveCommand(command: string | null): Promise<void>;
  /** The repository's size on disk, in bytes. */
  repositoryBytes(): number;
  /** SIGKILL of the postmaster: the machine is gone. */
  crash(): void;
  /** The disaster: the server killed and its data directory removed. */
  destroyData(): void;
  /**
   * pgBackRest restore into the (empty) data directory, to `targetTime` when given, else to the end
   * of the archive; starts the server and waits until it has promoted and takes writes.
   */
  restore(options?: { targetTime?: string }): Promise<{ restoreMs: number; recoveryMs: number }>;
  stop(): Promise<void>;
  /** Stops it and removes the folder. */
  remove(): Promise<void>;
};

export async function startArchivedPostgres(options: {
  dir: string;
  port: number;
  stanza?: string;
  /** Repository encryption (repo1-cipher-type aes-256-cbc); default on, with a fixed test pass. */
  cipherPass?: string | null;
  /** More postgresql.conf settings. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}): Promise<ArchivedPostgres> {
  const missing = archivedPostgresMissing();
  if (missing) throw new Error(missing);
  const log = options.log ?? (() => {});
  const dir = path.resolve(options.dir);
  const stanza = options.stanza ?? "keyhook";
  const dataDir = path.join(dir, "pgdata");
  const repoDir = path.join(dir, "repo");
  const configFile = path.join(dir, "pgbackrest.conf");
  const serverLog = path.join(dir, "postgresql.log");
  const root = process.getuid?.() === 0;
  // A socket path is limited to ~107 bytes; a deep checkout gets one under the system's tmp.
  const socketDir =
    path.join(dir, "run").length < 80 ? path.join(dir, "run") : mkdtempSync(path.join(tmpdir(), "keyhook-pg-"));
  const cipherPass = options.cipherPass === undefined ? "keyhook-test-repository-pass-0123456789" : options.cipherPass;

  const asPostgres = (command: string, args: string[]) =>
    root ? (["runuser", ["-u", "postgres", "--", command, ...args]] as const) : ([command, args] as const);
  const runAs = async (command: string, args: string[]) => {
    const [file, argv] = asPostgres(command, args);
    try {
      const { stdout } = await run(file, [...argv], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
      return stdout;
    } catch (error) {
      const e = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(
        `${path.basename(command)} ${args.join(" ")} failed: ${(e.stderr || e.stdout || e.message).trim()}`,
      );
    }
  };
  const pgCtl = (args: string[]) => runAs(path.join(BIN, "pg_ctl"), args);
  const pgbackrest = (args: string[]) => runAs(PGBACKREST, [`--config=${configFile}`, `--stanza=${stanza}`, ...args]);

  await stopIfRunning(dataDir, pgCtl);
  rmSync(dir, { recursive: true, force: true });
  for (const sub of [dataDir, repoDir, path.join(dir, "log"), path.join(dir, "lock"), socketDir])
    mkdirSync(sub, { recursive: true });
  writeFileSync(
    configFile,
    [
      "[global]",
      `repo1-path=${repoDir}`,
      // Two full backups and the WAL they need; older ones expire after each new full.
      "repo1-retention-full=2",
      ...(cipherPass ? ["repo1-cipher-type=aes-256-cbc", `repo1-cipher-pass=${cipherPass}`] : []),
      "compress-type=zst",
      "start-fast=y",
      "process-max=2",
      `log-path=${path.join(dir, "log")}`,
      `lock-path=${path.join(dir, "lock")}`,
      "log-level-console=warn",
      "log-level-file=info",
      "",
      `[${stanza}]`,
      `pg1-path=${dataDir}`,
      `pg1-port=${options.port}`,
      `pg1-socket-path=${socketDir}`,
      "",
    ].join("\n"),
  );
  if (root) execFileSync("chown", ["-R", "postgres:postgres", dir, socketDir]);
  await runAs(path.join(BIN, "initdb"), ["-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync"]);
  const archiveCommand = `${PGBACKREST} --config=${configFile} --stanza=${stanza} archive-push %p`;
  // In postgresql.conf (the backup carries it), so ALTER SYSTEM can change archive_command later;
  // the port and socket are given at each start instead (a restore may start elsewhere).
  const settings: Record<string, string> = {
    archive_mode: "on",
    archive_command: archiveCommand,
    archive_timeout: "60",
    max_connections: "100",
    ...options.settings,
  };
  writeFileSync(
    path.join(dataDir, "postgresql.conf"),
    readFileSync(path.join(dataDir, "postgresql.conf"), "utf8") +
      "\n# docs/backup.md\n" +
      Object.entries(settings)
        .map(([name, value]) => `${name} = '${value.replace(/'/g, "''")}'`)
        .join("\n") +
      "\n",
  );

  const start = () =>
    pgCtl([
      "-D",
      dataDir,
      "-l",
      serverLog,
      "-o",
      `-p ${options.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${socketDir}`,
      "-w",
      "-t",
      "300",
      "start",
    ]);
  await start();
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${options.port}/${database}`;
  await pgbackrest(["stanza-create"]);
  // Archives a segment through archive_command and checks the repository holds it.
  await pgbackrest(["check"]);
  log(`PostgreSQL 15 on ${options.port} archiving into ${repoDir} (stanza ${stanza})`);

  const postmasterPid = () => {
    const file = path.join(dataDir, "postmaster.pid");
    return existsSync(file) ? Number(readFileSync(file, "utf8").split("\n")[0]) : null;
  };
  const crash = () => {
    const pid = postmasterPid();
    if (!pid) return;
    // The postmaster and its backends at once, as a lost machine takes them.
    let children: number[] = [];
    try {
      children = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
        .split("\n")
        .map((line) => Number(line.trim()))
        .filter(Boolean);
    } catch {
      // ps exits 1 when there are none
    }
    for (const target of [pid, ...children]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // already gone
      }
    }
    // A zombie waiting for its parent to reap it is gone too.
    const gone = (target: number) => {
      try {
        return readFileSync(`/proc/${target}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? true;
      } catch {
        return true;
      }
    };
    const deadline = Date.now() + 10_000;
    while (![pid, ...children].every(gone)) {
      if (Date.now() > deadline) throw new Error(`PostgreSQL (pid ${pid}) survived SIGKILL`);
      execFileSync("sleep", ["0.05"]);
    }
  };

  return {
    dir,
    dataDir,
    repoDir,
    configFile,
    stanza,
    port: options.port,
    url,
    pgbackrest,
    async backup(type) {
      const started = performance.now();
      await pgbackrest([`--type=${type}`, "backup"]);
      return { ms: Math.round(performance.now() - started) };
    },
    async info() {
      return JSON.parse(await pgbackrest(["--output=json", "info"])) as unknown;
    },
    async switchWal(switchOptions = {}) {
      const segment = await withPgClient(url("postgres"), async (client) => {
        // A segment with nothing in it is not switched: write a record first.
        await client.query("SELECT pg_logical_emit_message(false, 'keyhook', 'switch')");
        const { rows } = await client.query<{ name: string }>("SELECT pg_walfile_name(pg_switch_wal()) AS name");
        return rows[0]!.name;
      });
      const deadline = Date.now() + (switchOptions.timeoutMs ?? 30_000);
      for (;;) {
        const done = await withPgClient(url("postgres"), async (client) => {
          const { rows } = await client.query<{ archived: string | null; failed: string | null }>(
            "SELECT last_archived_wal AS archived, last_failed_wal AS failed FROM pg_stat_archiver",
          );
          const { archived, failed } = rows[0]!;
          return (archived !== null && archived >= segment) || (failed !== null && failed >= segment);
        });
        if (done) return segment;
        if (Date.now() > deadline) throw new Error(`WAL segment ${segment} was neither archived nor failed in time`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async setArchiveCommand(command) {
      await withPgClient(url("postgres"), async (client) => {
        if (command === null) await client.query("ALTER SYSTEM RESET archive_command");
        else await client.query(`ALTER SYSTEM SET archive_command = '${command.replace(/'/g, "''")}'`);
        await client.query("SELECT pg_reload_conf()");
        // The reload is asynchronous: wait until a new session sees it.
        const expected = command ?? archiveCommand;
        for (;;) {
          const { rows } = await client.query<{ value: string }>(
            "SELECT setting AS value FROM pg_settings WHERE name = 'archive_command'",
          );
          if (rows[0]!.value === expected) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      });
    },
    repositoryBytes: () => directoryBytes(repoDir),
    crash,
    destroyData() {
      crash();
      rmSync(dataDir, { recursive: true, force: true });
    },
    async restore(restoreOptions = {}) {
      mkdirSync(dataDir, { recursive: true });
      if (root) execFileSync("chown", ["postgres:postgres", dataDir]);
      const started = performance.now();
      await pgbackrest([
        ...(restoreOptions.targetTime
          ? ["--type=time", `--target=${restoreOptions.targetTime}`, "--target-action=promote"]
          : []),
        "restore",
      ]);
      const restoreMs = Math.round(performance.now() - started);
      const recoveryStarted = performance.now();
      await start();
      // pg_ctl returns once it takes read-only connections; the replay to the target goes on.
      const deadline = Date.now() + 600_000;
      while (
        await withPgClient(url("postgres"), async (client) => {
          const { rows } = await client.query<{ recovering: boolean }>("SELECT pg_is_in_recovery() AS recovering");
          return rows[0]!.recovering;
        }).catch(() => true)
      ) {
        if (Date.now() > deadline) throw new Error(`PostgreSQL did not finish its recovery; see ${serverLog}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { restoreMs, recoveryMs: Math.round(performance.now() - recoveryStarted) };
    },
    stop: () => stopIfRunning(dataDir, pgCtl),
    async remove() {
      await stopIfRunning(dataDir, pgCtl);
      rmSync(dir, { recursive: true, force: true });
      if (!socketDir.startsWith(dir)) rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

async function stopIfRunning(dataDir: string, pgCtl: (args: string[]) => Promise<string>): Promise<void> {
  if (!existsSync(path.join(dataDir, "postmaster.pid"))) return;
  try {
    await pgCtl(["-D", dataDir, "-m", "fast", "-w", "stop"]);
  } catch {
    // already gone
  }
}

function directoryBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  return Number(execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split("\t")[0]);
}
