// A real high-availability PostgreSQL for the failover tests and `npm run test:failover`, set up
// the way docs/failover.md tells an operator to: Patroni (Debian's 3.0) managing PostgreSQL 15
// nodes, one etcd as its store, HAProxy in front routing to whichever node Patroni's REST API
// calls the primary (and a second port for the replicas). Everything runs as our own processes,
// in a scratch folder, on the ports given; stop() ends them and removes the folder.
//
// Each node's replication goes through a TCP proxy of ours (its connect_address), so a test can
// freeze the primary's outgoing WAL stream without touching the clients: the "lagging standby"
// of the unsafe control. The app and the checks never go through those proxies.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import net from "node:net";
import { withPgClient } from "./pg-client";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy";

const PATRONI = "/usr/bin/patroni";
const ETCD = "/usr/bin/etcd";
const HAPROXY = "/usr/sbin/haproxy";
const PG_BIN = "/usr/lib/postgresql/15/bin";
export const FAILOVER_PACKAGES = "patroni etcd-server haproxy postgresql-15";

export const SUPERUSER = { user: "postgres", password: "keyhook-failover" };

/** The tools, or why they are missing. */
export function findFailoverTools(): { ok: true } | { ok: false; reason: string } {
  const missing = [PATRONI, ETCD, HAPROXY, path.join(PG_BIN, "postgres")].filter((file) => !existsSync(file));
  return missing.length === 0
    ? { ok: true }
    : { ok: false, reason: `${missing.join(", ")} missing (apt-get install ${FAILOVER_PACKAGES})` };
}

/**
 * basePort +0/+1 etcd (client, peer), +2 HAProxy → primary, +3 HAProxy → replicas,
 * +10+i PostgreSQL of node i, +20+i its Patroni REST API, +30+i its replication proxy.
 */
export type PatroniClusterOptions = {
  basePort: number;
  /** Default 2. */
  nodes?: number;
  /** synchronous_mode + synchronous_mode_strict (a commit returns once a standby has it); else asynchronous. */
  synchronous: boolean;
  /** Scratch folder; default a fresh one under the system's temporary folder. */
  dir?: string;
  log?: (line: string) => void;
};

export type Member = { name: string; role: string; state: string; timeline?: number; lag?: number | string };

export type PatroniCluster = {
  dir: string;
  /** Through HAProxy to the current primary: what the app gets as DATABASE_URL. */
  primaryUrl(database: string): string;
  /** Through HAProxy to a replica (read-only). */
  replicaUrl(database: string): string;
  /** Node i itself, bypassing HAProxy. */
  nodeUrl(index: number, database: string): string;
  nodeName(index: number): string;
  members(): Promise<Member[]>;
  /** The index of the node Patroni calls the leader, with PostgreSQL running; null if none. */
  leader(): Promise<number | null>;
  /** Waits until a leader runs (other than `not`) and every other live node streams from it (sync: one is sync_standby). */
  waitForHealthy(options?: { not?: number; timeoutMs?: number }): Promise<number>;
  /** Waits until HAProxy's primary port answers a write. */
  waitForWritable(database: string, timeoutMs?: number): Promise<void>;
  /** SIGKILL of the node's postmaster and its backends (Patroni stays: it fails over at once, primary_start_timeout 0). */
  crashPostgres(index: number): void;
  /** SIGKILL of Patroni and PostgreSQL of the node: the machine is gone (failover after the leader key's TTL). */
  killNode(index: number): void;
  startNode(index: number): void;
  /** Holds the WAL stream leaving node i (its replication proxy), until thawReplication(). */
  freezeReplication(index: number): void;
  /**
   * Holds only what node i's standbys send back (their confirmations) while its WAL still reaches
   * them: they hold commits it waits to hear about. Until thawReplication().
   */
  holdConfirmations(index: number): void;
  thawReplication(): void;
  /** Drops node i's replication connections with whatever they still carried (its machine is gone), then lets new ones through. */
  dropReplication(index: number): Promise<void>;
  /** Switches the cluster's replication mode (Patroni's dynamic configuration) and waits for it to apply. */
  setSynchronous(on: boolean): Promise<void>;
  stopEtcd(): void;
  startEtcd(): void;
  stop(): Promise<void>;
};

// Tight loop for tests (production keeps Patroni's defaults: docs/failover.md).
const TTL_S = 10;
const LOOP_WAIT_S = 1;
const RETRY_TIMEOUT_S = 3;

export async function startPatroniCluster(options: PatroniClusterOptions): Promise<PatroniCluster> {
  const found = findFailoverTools();
  if (!found.ok) throw new Error(found.reason);
  const count = options.nodes ?? 2;
  const base = options.basePort;
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), "keyhook-patroni-"));
  mkdirSync(dir, { recursive: true });
  const log = options.log ?? (() => {});
  let synchronous = options.synchronous;
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  const ports = {
    etcd: base,
    etcdPeer: base + 1,
    haPrimary: base + 2,
    haReplica: base + 3,
    pg: (i: number) => base + 10 + i,
    rest: (i: number) => base + 20 + i,
    repl: (i: number) => base + 30 + i,
  };
  const all = [ports.etcd, ports.etcdPeer, ports.haPrimary, ports.haReplica];
  for (let i = 0; i < count; i++) all.push(ports.pg(i), ports.rest(i), ports.repl(i));
  const busy = (await Promise.all(all.map(async (port) => ((await isListening(port)) ? port : null)))).filter(Boolean);
  if (busy.length > 0) throw new Error(`ports already in use: ${busy.join(", ")}`);

  const children: ChildProcess[] = [];
  const spawnLogged = (name: string, command: string, args: string[], asPostgres: boolean) => {
    const fd = openSync(path.join(dir, `${name}.log`), "a");
    const child = spawn(command, args, {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: { ...process.env, LC_ALL: "C.UTF-8", LC_MESSAGES: "C" },
      ...(asPostgres ? runAs : {}),
    });
    closeSync(fd);
    children.push(child);
    return child;
  };

  let etcd: ChildProcess | null = null;
  const startEtcd = () => {
    etcd = spawnLogged(
      "etcd",
      ETCD,
      [
        "--name=keyhook",
        `--data-dir=${path.join(dir, "etcd")}`,
        `--listen-client-urls=http://127.0.0.1:${ports.etcd}`,
        `--advertise-client-urls=http://127.0.0.1:${ports.etcd}`,
        `--listen-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
        `--initial-cluster=keyhook=http://127.0.0.1:${ports.etcdPeer}`,
        "--log-level=warn",
      ],
      false,
    );
  };
  startEtcd();
  await waitFor(() => httpOk(`http://127.0.0.1:${ports.etcd}/health`), 20_000, "etcd did not answer /health");

  const proxies: TcpProxy[] = [];
  for (let i = 0; i < count; i++)
    proxies.push(await startTcpProxy({ host: "127.0.0.1", port: ports.pg(i) }, { port: ports.repl(i) }));

  const nodeName = (i: number) => `node${i}`;
  const nodeDir = (i: number) => path.join(dir, nodeName(i));
  for (let i = 0; i < count; i++) {
    mkdirSync(nodeDir(i), { recursive: true });
    writeFileSync(path.join(nodeDir(i), "patroni.yml"), patroniConfig(i));
  }
  if (runAs) chownTree(dir, runAs);

  function patroniConfig(i: number): string {
    // JSON is YAML: no YAML library needed.
    return JSON.stringify(
      {
        scope: "keyhook",
        namespace: "/keyhook/",
        name: nodeName(i),
        restapi: { listen: `127.0.0.1:${ports.rest(i)}`, connect_address: `127.0.0.1:${ports.rest(i)}` },
        etcd3: { hosts: `127.0.0.1:${ports.etcd}` },
        bootstrap: {
          dcs: {
            ttl: TTL_S,
            loop_wait: LOOP_WAIT_S,
            retry_timeout: RETRY_TIMEOUT_S,
            maximum_lag_on_failover: 1_048_576,
            // A crashed primary fails over at once instead of being restarted in place first.
            primary_start_timeout: 0,
            synchronous_mode: synchronous,
            synchronous_mode_strict: synchronous,
            failsafe_mode: true,
            postgresql: {
              use_pg_rewind: true,
              use_slots: true,
              parameters: {
                max_connections: 100,
                shared_buffers: "32MB",
                wal_keep_size: "128MB",
                wal_retrieve_retry_interval: "1s",
              },
            },
          },
          initdb: [{ encoding: "UTF8" }, { locale: "C" }, "data-checksums", "no-sync"],
          pg_hba: ["host replication replicator 127.0.0.1/32 scram-sha-256", "host all all 127.0.0.1/32 scram-sha-256"],
        },
        postgresql: {
          listen: `127.0.0.1:${ports.pg(i)}`,
          // What the others stream from (and pg_rewind reads): our freezable proxy.
          connect_address: `127.0.0.1:${ports.repl(i)}`,
          data_dir: path.join(nodeDir(i), "data"),
          bin_dir: PG_BIN,
          pgpass: path.join(nodeDir(i), "pgpass"),
          authentication: {
            replication: { username: "replicator", password: "keyhook-replication" },
            superuser: { username: SUPERUSER.user, password: SUPERUSER.password },
            rewind: { username: "rewinder", password: "keyhook-rewind" },
          },
          parameters: { unix_socket_directories: "", lc_messages: "C" },
        },
        tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
      },
      null,
      2,
    );
  }

  const patroni: (ChildProcess | null)[] = new Array(count).fill(null);
  const startNode = (i: number) => {
    patroni[i] = spawnLogged(nodeName(i), PATRONI, [path.join(nodeDir(i), "patroni.yml")], true);
  };
  for (let i = 0; i < count; i++) startNode(i);

  writeFileSync(
    path.join(dir, "haproxy.cfg"),
    [
      "global",
      "  maxconn 1000",
      "defaults",
      "  mode tcp",
      "  retries 2",
      "  timeout client 30m",
      "  timeout server 30m",
      "  timeout connect 2s",
      "  timeout check 2s",
      listen("primary", ports.haPrimary, "/primary"),
      listen("replicas", ports.haReplica, "/replica"),
      "",
    ].join("\n"),
  );
  function listen(name: string, port: number, check: string): string {
    return [
      `listen ${name}`,
      `  bind 127.0.0.1:${port}`,
      `  option httpchk OPTIONS ${check}`,
      "  http-check expect status 200",
      // Sessions to a node that stops being the primary are cut, so no client keeps writing to it.
      "  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions",
      ...Array.from(
        { length: count },
        (_, i) => `  server ${nodeName(i)} 127.0.0.1:${ports.pg(i)} maxconn 200 check port ${ports.rest(i)}`,
      ),
    ].join("\n");
  }
  spawnLogged("haproxy", HAPROXY, ["-db", "-f", path.join(dir, "haproxy.cfg")], false);

  const url = (port: number, database: string) =>
    `postgresql://${SUPERUSER.user}:${SUPERUSER.password}@127.0.0.1:${port}/${encodeURIComponent(database)}`;

  const members = async (): Promise<Member[]> => {
    for (let i = 0; i < count; i++) {
      try {
        const response = await fetch(`http://127.0.0.1:${ports.rest(i)}/cluster`, {
          signal: AbortSignal.timeout(1_000),
        });
        if (response.ok) return ((await response.json()) as { members: Member[] }).members;
      } catch {
        // that node's API is down; ask the next one
      }
    }
    return [];
  };
  const indexOf = (name: string) => Number(name.replace("node", ""));
  const leader = async () => {
    const found = (await members()).find((m) => m.role === "leader" && m.state === "running");
    return found ? indexOf(found.name) : null;
  };

  const postmasterPid = (i: number): number | null => {
    try {
      return Number(readFileSync(path.join(nodeDir(i), "data", "postmaster.pid"), "utf8").split("\n")[0]);
    } catch {
      return null;
    }
  };
  const killGroup = (pid: number | null | undefined) => {
    if (!pid) return;
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // already gone
      }
    }
  };

  const cluster: PatroniCluster = {
    dir,
    primaryUrl: (database) => url(ports.haPrimary, database),
    replicaUrl: (database) => url(ports.haReplica, database),
    nodeUrl: (i, database) => url(ports.pg(i), database),
    nodeName,
    members,
    leader,
    async waitForHealthy({ not, timeoutMs = 90_000 } = {}) {
      let found: number | null = null;
      await waitFor(
        async () => {
          const list = await members();
          const lead = list.find((m) => m.role === "leader" && m.state === "running");
          if (!lead || indexOf(lead.name) === not) return false;
          const live = patroni.map((p, i) => (p ? nodeName(i) : null)).filter(Boolean);
          const others = list.filter((m) => m !== lead && live.includes(m.name));
          if (others.length < live.length - 1) return false;
          if (!others.every((m) => m.state === "running" || m.state === "streaming")) return false;
          if (synchronous && !others.some((m) => m.role === "sync_standby")) return false;
          found = indexOf(lead.name);
          return true;
        },
        timeoutMs,
        `the cluster was not healthy within ${timeoutMs} ms (see ${dir}/*.log)`,
      );
      return found!;
    },
    async waitForWritable(database, timeoutMs = 60_000) {
      await waitFor(
        () =>
          withPgClient(url(ports.haPrimary, database), async (client) => {
            const { rows } = await client.query<{ ro: boolean }>("SELECT pg_is_in_recovery() AS ro");
            return rows[0]?.ro === false;
          }).catch(() => false),
        timeoutMs,
        `HAProxy's primary port did not reach a writable node within ${timeoutMs} ms`,
      );
    },
    crashPostgres(i) {
      const pid = postmasterPid(i);
      if (!pid) throw new Error(`${nodeName(i)} has no postmaster running`);
      log(`SIGKILL PostgreSQL of ${nodeName(i)} (postmaster ${pid})`);
      killGroup(pid);
    },
    killNode(i) {
      log(`SIGKILL Patroni and PostgreSQL of ${nodeName(i)}`);
      killGroup(patroni[i]?.pid);
      patroni[i] = null;
      killGroup(postmasterPid(i));
    },
    startNode(i) {
      log(`starting ${nodeName(i)} again`);
      startNode(i);
    },
    freezeReplication(i) {
      log(`freezing the WAL stream leaving ${nodeName(i)}`);
      proxies[i]!.freeze();
    },
    holdConfirmations(i) {
      log(`holding the confirmations sent back to ${nodeName(i)}`);
      proxies[i]!.freeze("from-client");
    },
    thawReplication() {
      for (const proxy of proxies) proxy.thaw();
    },
    async dropReplication(i) {
      const proxy = proxies[i]!;
      await proxy.down();
      proxy.thaw();
      await proxy.up();
    },
    async setSynchronous(on) {
      const lead = await leader();
      if (lead === null) throw new Error("no leader to reconfigure");
      const response = await fetch(`http://127.0.0.1:${ports.rest(lead)}/config`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ synchronous_mode: on, synchronous_mode_strict: on }),
      });
      if (!response.ok) throw new Error(`PATCH /config → ${response.status} ${await response.text()}`);
      synchronous = on;
      // Patroni's view first, then PostgreSQL's own on the primary (what the readiness step
      // reads): Patroni reports the change before PostgreSQL has reloaded it.
      await waitFor(
        async () => {
          const list = await members();
          if (list.some((m) => m.role === "sync_standby") !== on) return false;
          const [row] = await withPgClient(url(ports.haPrimary, "postgres"), async (client) => {
            const { rows } = await client.query<{ names: string; sync: number }>(
              `SELECT current_setting('synchronous_standby_names') AS names,
                      (SELECT count(*)::int FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')) AS sync`,
            );
            return rows;
          }).catch(() => [undefined]);
          return row !== undefined && (row.names !== "" && row.sync > 0) === on;
        },
        30_000,
        `replication did not become ${on ? "synchronous" : "asynchronous"}`,
      );
    },
    stopEtcd() {
      log("SIGKILL etcd");
      killGroup(etcd?.pid);
      etcd = null;
    },
    startEtcd() {
      log("starting etcd again");
      startEtcd();
    },
    async stop() {
      for (let i = 0; i < count; i++) {
        killGroup(patroni[i]?.pid);
        killGroup(postmasterPid(i));
      }
      for (const child of children) killGroup(child.pid);
      for (const proxy of proxies) await proxy.close();
      await Promise.all(children.map((child) => exited(child)));
      // Backends outlive a SIGKILLed postmaster for a moment; the folder goes once they are gone.
      await waitFor(async () => [...Array(count).keys()].every((i) => !pidAlive(postmasterPid(i))), 10_000, "").catch(
        () => {},
      );
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    await cluster.waitForHealthy({ timeoutMs: 120_000 });
    await cluster.waitForWritable("postgres");
  } catch (error) {
    const tails = readdirSync(dir)
      .filter((file) => file.endsWith(".log"))
      .map((file) => `--- ${file}\n${readFileSync(path.join(dir, file), "utf8").split("\n").slice(-15).join("\n")}`);
    await cluster.stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tails.join("\n")}`);
  }
  return cluster;
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

function chownTree(dir: string, owner: { uid: number; gid: number }): void {
  execFileSync("chown", ["-R", `${owner.uid}:${owner.gid}`, dir]);
  chownSync(dir, owner.uid, owner.gid);
}

function pidAlive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function httpOk(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** Polls until `check` holds, or throws `message` after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  message: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
