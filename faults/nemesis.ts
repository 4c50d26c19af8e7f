// The nemesis: while events flow, it SIGKILLs the app at random moments (and starts it again) and
// restarts PostgreSQL a given number of times, spread over the emission window. The two never
// overlap: a launcher booting while PostgreSQL is down would fail its migrations check and exit,
// which tests the launcher, not the ingest.
import type { AppProcess } from "./app-process";
import type { DatabaseServer } from "./database-server";

export type FaultRecord = {
  atMs: number;
  kind: "app-killed" | "app-started" | "pg-restarted";
  detail: Record<string, number>;
};

export type Nemesis = {
  records: FaultRecord[];
  /** Set when a fault could not be undone (the app did not come back): the run must stop. */
  failure(): Error | null;
  /** Stops injecting; a fault in progress is completed (the app restarted) first. Throws `failure()`. */
  stop(): Promise<void>;
};

export function startNemesis(options: {
  app: AppProcess;
  database: DatabaseServer;
  random: () => number;
  killMinMs: number;
  killMaxMs: number;
  pgRestarts: number;
  pgDownMs: number;
  /** The expected emission window: PostgreSQL restarts are spread over it. */
  windowMs: number;
  /** Resolves when the next delivery starts towards the app. */
  nextDelivery: () => Promise<void>;
  /** Resolves just after the app's next commit (false: none came in time). */
  nextCommit: (timeoutMs: number) => Promise<boolean>;
  log: (line: string) => void;
}): Nemesis {
  const records: FaultRecord[] = [];
  const started = performance.now();
  const stopping = new AbortController();
  let exclusive = Promise.resolve();
  const elapsed = () => Math.round(performance.now() - started);
  const record = (kind: FaultRecord["kind"], detail: Record<string, number>) =>
    records.push({ atMs: elapsed(), kind, detail });

  /** Runs one fault at a time; a fault in progress finishes even when the nemesis is stopped. */
  const oneAtATime = (work: () => Promise<void>) => {
    const run = exclusive.then(work);
    exclusive = run.catch(() => {});
    return run;
  };

  const restartApp = async () => {
    // A few tries: a start can fail when a port or the machine is slow to let go.
    for (let attempt = 1; ; attempt++) {
      try {
        const { bootMs } = await options.app.start();
        record("app-started", { bootMs });
        options.log(`app started (${bootMs} ms)`);
        return;
      } catch (error) {
        if (attempt >= 3) throw error;
        options.log(`app start failed (${error instanceof Error ? error.message : String(error)}); retrying`);
        await options.app.crash();
      }
    }
  };

  let kills = 0;
  const killLoop = async () => {
    if (options.killMaxMs <= 0) return;
    while (!stopping.signal.aborted) {
      await sleep(options.killMinMs + options.random() * (options.killMaxMs - options.killMinMs), stopping.signal);
      if (stopping.signal.aborted) return;
      await oneAtATime(async () => {
        // Every kill lands while deliveries flow; every other one just after a commit, before
        // its 200 is written, the rest 0–4 ms after a request reached the app (a request takes
        // a few ms there). With no traffic within 2 s, it kills anyway.
        const afterCommit = kills++ % 2 === 0;
        const at = afterCommit
          ? options.nextCommit(2_000).then(() => {})
          : Promise.race([options.nextDelivery().then(() => sleep(options.random() * 4)), sleep(2_000)]);
        const { killed } = await options.app.crash({ at });
        record("app-killed", { processes: killed, afterCommit: afterCommit ? 1 : 0 });
        options.log(`app SIGKILLed ${afterCommit ? "just after a commit" : "during a request"} (${killed} processes)`);
        // Down for a moment: deliveries meanwhile meet a closed port and are retried later.
        await sleep(options.random() * 1_000);
        await restartApp();
      });
    }
  };

  const pgLoop = async () => {
    for (let i = 0; i < options.pgRestarts; i++) {
      // Evenly spread, ±10 % of a slot, so each restart lands under load.
      const slot = options.windowMs / options.pgRestarts;
      const at = slot * (i + 0.5) + (options.random() - 0.5) * 0.2 * slot;
      await sleep(at - elapsed(), stopping.signal);
      if (stopping.signal.aborted) return;
      // A crash first (and every other time), an orderly restart in between.
      const mode = i % 2 === 0 ? "immediate" : "fast";
      await oneAtATime(async () => {
        const { downMs } = await options.database.restart({ downMs: options.pgDownMs, mode });
        record("pg-restarted", { downMs, crashed: mode === "immediate" ? 1 : 0 });
        options.log(
          `PostgreSQL ${mode === "immediate" ? "crashed (SIGQUIT) and restarted" : "restarted (fast shutdown)"}; down ${downMs} ms`,
        );
      });
    }
  };

  let failure: Error | null = null;
  const loops = Promise.all([killLoop(), pgLoop()]).catch((error: unknown) => {
    failure = error instanceof Error ? error : new Error(String(error));
    stopping.abort();
  });
  return {
    records,
    failure: () => failure,
    async stop() {
      stopping.abort();
      await loops;
      await exclusive;
      if (failure) throw failure;
    },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
