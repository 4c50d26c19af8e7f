// WEB_CONCURRENCY=N (N > 1): the process `npm start` / `node keyhook-start.mjs` runs becomes a
// node:cluster primary that serves nothing itself (it never loads Next) and keeps N workers, each
// a complete production server (server/production-server.ts) with its own Prisma pool, sharing
// the port (the primary accepts connections and hands them out round-robin).
//   - A worker that dies after it was listening is replaced; one that dies before it ever listened
//     (a bad build, the port taken) would die again: the primary stops the others and exits 1.
//   - SIGTERM/SIGINT: every worker drains as a single server does (its requests in flight finish
//     within SHUTDOWN_DRAIN_MS, then its pools close); the primary exits once all have, 0 when
//     every worker stopped cleanly, else 1. A worker still alive 5 s after the bound is killed.
//   - If the primary itself is killed, node:cluster exits each worker when its IPC channel closes.
import cluster, { type Worker } from "node:cluster";

export type ClusterOptions = {
  workers: number;
  drainMs: number;
};

const say = (line: string) => process.stdout.write(`keyhook: ${line}\n`);

export function runClusterPrimary(options: ClusterOptions): void {
  const listening = new WeakSet<Worker>();
  let stopping = false;
  let failed = false;

  const fork = () => cluster.fork();

  cluster.on("listening", (worker) => listening.add(worker));
  cluster.on("exit", (worker, code, signal) => {
    const how = signal ?? `code ${code}`;
    if (!stopping) {
      if (listening.has(worker)) {
        say(`server process ${worker.process.pid} exited (${how}); starting a replacement`);
        fork();
        return;
      }
      say(`server process ${worker.process.pid} exited (${how}) before it was listening; stopping`);
      failed = true;
      stop("startup failure");
    }
    if (code !== 0) failed = true;
    if (Object.keys(cluster.workers ?? {}).length === 0) {
      say(failed ? "stopped" : "stopped cleanly");
      process.exit(failed ? 1 : 0);
    }
  });

  function stop(reason: string): void {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    say(`${reason}: stopping ${workers.length} server process(es)`);
    // Each worker drains itself on SIGTERM (it may have had one already from the process group).
    for (const worker of workers) worker.process.kill("SIGTERM");
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
    }, options.drainMs + 5_000).unref();
  }

  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  say(`WEB_CONCURRENCY=${options.workers}: starting ${options.workers} server processes`);
  for (let i = 0; i < options.workers; i++) fork();
}
