// What PostgreSQL is doing during a benchmark phase, to find what slows ingest down rather than
// guess: every 200 ms, what each active backend of the database waits on (ingest's backends apart
// from the purge's, "running" when it waits on nothing), whether autovacuum or a checkpoint is at
// work; and over the phase, the WAL written (bytes, full-page images) and checkpoints started.
import pg from "pg";

export type ActivityReport = {
  samples: number;
  /** Share of ingest backend samples per wait ("running" = on CPU or between waits), top 6. */
  ingestWaits: Record<string, number>;
  /** Mean number of ingest backends active at a sample. */
  ingestActive: number;
  /** Share of samples with an autovacuum worker in this database / a checkpoint writing. */
  autovacuumShare: number;
  checkpointWritingShare: number;
  walMiBPerSec: number;
  walFpiPerSec: number;
  checkpoints: number;
};

type Stats = { wal: Record<string, number>; checkpointer: Record<string, number>; at: number };

export async function watchActivity(databaseUrl: string, excludeApplication: string) {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-activity" });
  await client.connect();
  const stats = async (): Promise<Stats> => {
    const { rows } = await client.query<{ wal: Record<string, number>; checkpointer: Record<string, number> }>(
      `SELECT (SELECT to_jsonb(w) FROM pg_stat_wal w) AS wal, (SELECT to_jsonb(c) FROM pg_stat_checkpointer c) AS checkpointer`,
    );
    return { ...rows[0]!, at: performance.now() };
  };

  let phase: {
    start: Stats;
    waits: Map<string, number>;
    ingestSamples: number;
    samples: number;
    av: number;
    cp: number;
  } | null = null;
  let timer: NodeJS.Timeout | undefined;
  let sampling: Promise<void> = Promise.resolve();

  const sample = async () => {
    if (!phase) return;
    const current = phase;
    const { rows } = await client.query<{ kind: string; wait: string; n: number }>(
      `SELECT CASE WHEN backend_type = 'client backend' THEN
                CASE WHEN application_name = $1 THEN 'purge' ELSE 'ingest' END
              ELSE backend_type END AS kind,
              coalesce(wait_event_type || ':' || wait_event, 'running') AS wait, count(*)::int AS n
         FROM pg_stat_activity
        WHERE pid <> pg_backend_pid()
          AND ((backend_type = 'client backend' AND datname = current_database() AND state = 'active')
               OR backend_type IN ('autovacuum worker', 'checkpointer'))
        GROUP BY 1, 2`,
      [excludeApplication],
    );
    current.samples += 1;
    let autovacuum = false;
    let checkpointWriting = false;
    for (const row of rows) {
      if (row.kind === "ingest") {
        current.ingestSamples += row.n;
        current.waits.set(row.wait, (current.waits.get(row.wait) ?? 0) + row.n);
      } else if (row.kind === "autovacuum worker") autovacuum = true;
      else if (row.kind === "checkpointer" && row.wait !== "Activity:CheckpointerMain") checkpointWriting = true;
    }
    if (autovacuum) current.av += 1;
    if (checkpointWriting) current.cp += 1;
  };

  return {
    async start() {
      phase = { start: await stats(), waits: new Map(), ingestSamples: 0, samples: 0, av: 0, cp: 0 };
      timer = setInterval(() => {
        sampling = sampling.then(sample).catch(() => {});
      }, 200);
    },
    async stop(): Promise<ActivityReport> {
      clearInterval(timer);
      await sampling;
      const current = phase!;
      phase = null;
      const end = await stats();
      const seconds = (end.at - current.start.at) / 1000;
      const delta = (pick: (s: Stats) => number) => pick(end) - pick(current.start);
      const top = [...current.waits.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6);
      const share = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 1000) / 1000 : 0);
      return {
        samples: current.samples,
        ingestWaits: Object.fromEntries(top.map(([wait, n]) => [wait, share(n, current.ingestSamples)])),
        ingestActive: Math.round((current.ingestSamples / Math.max(1, current.samples)) * 100) / 100,
        autovacuumShare: share(current.av, current.samples),
        checkpointWritingShare: share(current.cp, current.samples),
        walMiBPerSec: Math.round((delta((s) => Number(s.wal.wal_bytes)) / 1048576 / seconds) * 100) / 100,
        walFpiPerSec: Math.round(delta((s) => Number(s.wal.wal_fpi)) / seconds),
        // PostgreSQL 18 counts completed checkpoints (num_done); 17 only those started.
        checkpoints: delta((s) =>
          Number(
            s.checkpointer.num_done ??
              Number(s.checkpointer.num_timed ?? 0) + Number(s.checkpointer.num_requested ?? 0),
          ),
        ),
      };
    },
    close: () => client.end(),
  };
}

/**
 * The pids of the client backends serving `database` now, but the benchmark's own connections
 * (application_name `excludeApplication`): what an arm's ingest costs PostgreSQL itself is their
 * CPU (process-cpu.ts samplePidsCpu). Autovacuum, the WAL writer and the checkpointer are shared
 * by every database and left out.
 */
export async function clientBackendPids(
  admin: pg.ClientBase | pg.Pool,
  database: string,
  excludeApplication: string,
): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND datname = $1 AND application_name <> $2`,
    [database, excludeApplication],
  );
  return rows.map((row) => row.pid);
}
