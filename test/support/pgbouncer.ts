// A real PgBouncer (Debian's 1.18) in transaction mode in front of a test PostgreSQL, for the
// tests and the benchmark that must run through a pooler. Settings as a user gets them:
// pool_mode = transaction, max_prepared_statements unset (1.18 has none: named statements are
// not tracked), no `options` startup parameter accepted. Every database name is forwarded to the
// upstream server (`*` fallback), so per-file test databases need no configuration.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";

export type PgBouncer = {
  port: number;
  /** CPU seconds (user + system) the PgBouncer process has used so far (Linux /proc). */
  cpuSeconds(): number;
  /** The pooled URL of `database` as the app takes it (with Prisma's `pgbouncer=true`). */
  url(database: string): string;
  stop(): Promise<void>;
};

const CANDIDATES = [process.env.PGBOUNCER_BIN, "/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].filter(Boolean) as string[];

/** The pgbouncer binary, or null with the reason. */
export function findPgBouncer(): { bin: string } | { bin: null; reason: string } {
  const bin = CANDIDATES.find((candidate) => existsSync(candidate));
  return bin ? { bin } : { bin: null, reason: "pgbouncer is not installed (apt-get install pgbouncer)" };
}

export async function startPgBouncer(options: {
  /** A URL of the upstream server with the user and password PgBouncer logs in with. */
  upstreamUrl: string;
  port: number;
  dir: string;
  /** Server connections per (database, user). Default 20. */
  poolSize?: number;
}): Promise<PgBouncer> {
  const found = findPgBouncer();
  if (found.bin === null) throw new Error(found.reason);
  const upstream = new URL(options.upstreamUrl);
  const user = decodeURIComponent(upstream.username);
  const password = decodeURIComponent(upstream.password);
  const dir = path.resolve(options.dir);
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  const ini = path.join(dir, "pgbouncer.ini");
  const userlist = path.join(dir, "userlist.txt");
  await writeFile(userlist, `"${user}" "${password}"\n`);
  await writeFile(
    ini,
    [
      "[databases]",
      `* = host=${upstream.hostname} port=${upstream.port} user=${user} password=${password}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${options.port}`,
      "unix_socket_dir =",
      // Loopback only, test data only: clients are not asked for a password (the user must
      // still be in the userlist); PgBouncer logs in upstream with the password above.
      "auth_type = trust",
      `auth_file = ${userlist}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 20}`,
      "max_client_conn = 1000",
      "server_lifetime = 3600",
      "log_connections = 0",
      "log_disconnections = 0",
      // PgBouncer refuses to run as root; it drops to this user after reading its files.
      ...(process.getuid?.() === 0 ? ["user = postgres"] : []),
      "",
    ].join("\n"),
  );
  await chmod(ini, 0o644);
  await chmod(userlist, 0o644);

  const child = spawn(found.bin, [ini], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  await waitForPort(options.port, child, () => output);
  return {
    port: options.port,
    cpuSeconds: () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (USER_HZ = 100)
    },
    url: (database) =>
      `postgresql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${options.port}/${encodeURIComponent(database)}?pgbouncer=true`,
    stop: () => stopChild(child),
  };
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with code ${child.exitCode}:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host: "127.0.0.1" }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port} within 10 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGINT"); // PgBouncer: SIGINT = safe shutdown after clients are done; SIGTERM = immediate
  });
}
