import "server-only";
// Keeps the job queue running through database outages and failovers, and bounds its shutdown.
// graphile-worker rides out a lost connection while it waits (its LISTEN reconnects with
// backoff), but a connection cut while it records a job's end makes its worker pool shut itself
// down. This starts a new one, with backoff, until the database answers again, and frees the jobs
// the dead pool still held (the queue's own sweep would leave them locked for hours).
// stop() gives the jobs in flight `graceMs` to finish: past it, with the database away, they are
// left behind, which is safe: each job may run again (chains and cron slots re-queue themselves,
// outbox rows have leases).
import { EventEmitter } from "node:events";
import pg from "pg";
import type { Runner, WorkerEvents } from "graphile-worker";
import { withDeadline } from "../../core/concurrency/with-deadline";
import { describeError, log } from "../../core/log";
import { startJobWorker, type JobWorkerOptions } from "./start-job-worker";

type JobWorkerSupervisor = {
  /** Stops the queue: the jobs in flight get `graceMs`, then they are left to run again. */
  stop(graceMs: number): Promise<void>;
};

const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;

export async function superviseJobWorker(options: JobWorkerOptions): Promise<JobWorkerSupervisor> {
  const events: WorkerEvents = options.events ?? new EventEmitter();
  let poolId: string | null = null;
  events.on("pool:create", ({ workerPool }) => {
    poolId = workerPool.id;
  });
  let runner: Runner = await startJobWorker({ ...options, events });
  let stopping = false;
  let restarts = 0;
  let wake: () => void = () => {};
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const watching = (async () => {
    while (!stopping) {
      const error: unknown = await runner.promise.then(
        () => null,
        (e: unknown) => e,
      );
      if (stopping) return;
      const deadPool = poolId;
      log.warn("job queue stopped on a database error; starting it again", {
        ...(error === null ? {} : { error: describeError(error) }),
      });
      for (let attempt = 1; !stopping; attempt++) {
        await pause(Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** attempt));
        if (stopping) return;
        try {
          runner = await startJobWorker({ ...options, events });
          restarts++;
          break;
        } catch (startError) {
          log.warn("job queue could not start yet; retrying", { attempt, error: describeError(startError) });
        }
      }
      if (deadPool) await unlockJobsOf(options.connectionString, deadPool);
      log.info("job queue running again", { restarts });
    }
  })();

  // The runner of the moment, and one a restart in progress was still starting.
  const stopEveryRunner = async () => {
    for (;;) {
      const current = runner;
      await current.stop().catch(() => {}); // already stopped on its own: nothing to do
      await watching;
      if (runner === current) return;
    }
  };

  return {
    async stop(graceMs) {
      stopping = true;
      wake();
      try {
        await withDeadline(stopEveryRunner(), graceMs, "the jobs in flight");
      } catch (error) {
        log.warn("jobs still running at shutdown were left for the queue to run again", {
          error: describeError(error),
        });
      }
    },
  };
}

/** Best effort: the jobs a dead pool held become available again at once. */
async function unlockJobsOf(connectionString: string, pool: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [[pool]]);
  } catch (error) {
    log.warn("could not unlock the jobs of the stopped queue; the queue frees them later", {
      pool,
      error: describeError(error),
    });
  } finally {
    await client.end().catch(() => {});
  }
}
