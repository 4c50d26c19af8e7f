// The worker process (server/worker.ts) against a database that goes away under it, the way a
// failover or a fast stop does it: every connection cut at once, new ones refused for a while,
// or the server silent (packets held). The worker reaches PostgreSQL through a TCP proxy the
// test controls; the queue's poll interval is a minute, so a job that runs within the test's
// timeout was woken by LISTEN, which therefore came back.
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitUntil } from "../../support/child-process";
import { startTcpProxy, type TcpProxy } from "../../support/tcp-proxy";
import { startWorker, type WorkerProcess } from "../../support/worker";

const databaseUrl = () => process.env.DATABASE_URL!;
let admin: pg.Client;
let proxy: TcpProxy;
let worker: WorkerProcess | null = null;

beforeEach(async () => {
  admin = new pg.Client({ connectionString: databaseUrl() });
  await admin.connect();
  const direct = new URL(databaseUrl());
  proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
});
afterEach(async (context) => {
  // A test that timed out says nothing of where the worker was: its output does.
  if (context.task.result?.state !== "pass" && worker) console.error(worker.output.join(""));
  await worker?.kill("SIGKILL");
  worker = null;
  await proxy.close();
  await admin.end();
});

function startWorkerThroughProxy(): WorkerProcess {
  const url = new URL(databaseUrl());
  url.port = String(proxy.port);
  return startWorker({
    DATABASE_URL: url.toString(),
    // Only NOTIFY wakes the queue within a test's lifetime.
    OUTBOX_POLL_INTERVAL_MS: "60000",
    ROLLUP_INTERVAL_MS: "100",
    INGEST_TX_TIMEOUT_MS: "500",
    SHUTDOWN_DRAIN_MS: "1000",
  });
}

const exited = (w: WorkerProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (w.child.exitCode !== null || w.child.signalCode !== null)
      resolve({ code: w.child.exitCode, signal: w.child.signalCode });
    else w.child.once("exit", (code, signal) => resolve({ code, signal }));
  });

/** Queues a job through the direct connection; resolves once a worker has run it. */
async function jobRuns(key: string): Promise<void> {
  await admin.query(`SELECT graphile_worker.add_job('outbox.drain', '{}'::json, job_key => $1)`, [key]);
  await waitUntil(async () => {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = $1`,
      [key],
    );
    return rows[0]!.n === 0;
  }, 50);
}

describe("the worker when its database goes away", () => {
  it("a job cut off mid-run while new connections are refused: the process stays up, LISTEN and the jobs resume", async () => {
    worker = startWorkerThroughProxy();
    await waitUntil(() => worker!.output.join("").includes("worker started"), 50);
    // A worker purges its day's slot when it starts; let that run end, so that the query found
    // waiting on the watermarks' lock below is the fold's, not the purge's.
    await waitUntil(async () => {
      const { rows } = await admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM purge_runs WHERE status <> 'running'`,
      );
      return rows[0]!.n > 0;
    }, 50);
    await jobRuns("before");

    // Hold the rollup watermarks so a fold job is inside a query when the cut comes: the queue
    // then has to record its failure while the database refuses every connection. The fold's own
    // chain comes due between polls (a minute here), so a fold job is queued now, with a NOTIFY.
    await admin.query("BEGIN");
    await admin.query("SELECT 1 FROM rollup_watermarks FOR UPDATE");
    const waiting = new pg.Client({ connectionString: databaseUrl() });
    await waiting.connect();
    try {
      await waiting.query(`SELECT graphile_worker.add_job('rollups.fold', '{}'::json)`);
      await waitUntil(async () => {
        const { rows } = await waiting.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return rows.length > 0;
      }, 50);
    } finally {
      await waiting.end();
    }
    await proxy.down();
    await admin.query("ROLLBACK");
    await waitUntil(() => /job queue stopped|job failed/.test(worker!.output.join("")), 50);
    // Refused for a while (a failover's gap), then back.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(worker.child.exitCode, worker.output.join("")).toBeNull();
    await proxy.up();

    await jobRuns("after");
    expect(worker.child.exitCode).toBeNull();
    // What Node prints when an unhandled rejection kills the process.
    expect(worker.output.join("")).not.toMatch(/^Node\.js v\d/m);
  });

  it("SIGTERM while the database is silent: the process exits 0, its jobs given SHUTDOWN_DRAIN_MS", async () => {
    worker = startWorkerThroughProxy();
    await waitUntil(() => worker!.output.join("").includes("worker started"), 50);
    proxy.freeze();
    // Whatever the worker was saying to the database (LISTEN, a job, the queue's own queries)
    // now waits on the silent connection.
    await new Promise((resolve) => setTimeout(resolve, 500));
    worker.child.kill("SIGTERM");
    const result = await exited(worker);
    expect(result, worker.output.join("")).toEqual({ code: 0, signal: null });
    expect(worker.output.join("")).toContain("worker stopped");
  });
});
