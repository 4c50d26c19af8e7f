// A throwaway PostgreSQL from Debian's packages (postgresql-15), for what the embedded server
// cannot give: its client tools. Debian's pg_dump refuses to dump a newer server (the embedded
// one is 18), so a test that must run a plain `pg_dump` runs it against this server instead.
// As root the server runs as the `postgres` user (PostgreSQL refuses root).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";

const BIN = process.env.DEBIAN_PG_BIN ?? "/usr/lib/postgresql/15/bin";

export type DebianPostgres = {
  /** A URL of `database` as the superuser. */
  url(database: string): string;
  /** Runs one of the server's client tools (pg_dump …) and returns its output. */
  tool(name: string, args: string[]): string;
  stop(): void;
};

/** Null when it can run, else why not. */
export function debianPostgresMissing(): string | null {
  return existsSync(path.join(BIN, "pg_ctl")) ? null : `${BIN}/pg_ctl not found (apt-get install postgresql-15)`;
}

export async function startDebianPostgres(options: { dir: string; port: number }): Promise<DebianPostgres> {
  const dir = path.resolve(options.dir);
  const root = process.getuid?.() === 0;
  const run = (command: string, args: string[]) =>
    execFileSync(
      root ? "runuser" : path.join(BIN, command),
      root ? ["-u", "postgres", "--", path.join(BIN, command), ...args] : args,
      {
        stdio: ["ignore", "pipe", "pipe"],
        encoding: "utf8",
      },
    );
  stopIfRunning(run, dir);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (root) execFileSync("chown", ["postgres", dir]);
  run("initdb", ["-D", dir, "-U", "postgres", "--auth=trust", "--no-sync"]);
  run("pg_ctl", [
    "-D",
    dir,
    "-l",
    path.join(dir, "server.log"),
    "-o",
    `-p ${options.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off`,
    "-w",
    "start",
  ]);
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${options.port}/${database}`;
  const admin = new pg.Client({ connectionString: url("postgres") });
  await admin.connect();
  await admin.end();
  return {
    url,
    tool: (name, args) => run(name, args),
    stop: () => {
      stopIfRunning(run, dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function stopIfRunning(run: (command: string, args: string[]) => string, dir: string): void {
  if (!existsSync(path.join(dir, "postmaster.pid"))) return;
  try {
    run("pg_ctl", ["-D", dir, "-m", "immediate", "-w", "stop"]);
  } catch {
    // already gone
  }
}
