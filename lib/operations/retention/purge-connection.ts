import "server-only";
// The purge's own PostgreSQL connection (outside the Prisma pool, so it never takes a slot
// ingest needs) and the lease that lets one replica own a run of many short transactions.
//
// It works the same on a direct connection and through a transaction-mode pooler (DATABASE_URL
// with pgbouncer=true), where a session-level advisory lock would stay behind on whichever pooled
// server connection took it and make every later purge record `skipped_locked`. So no
// session state at all:
// - taking the run is ONE transaction holding pg_try_advisory_xact_lock: inside it, a run whose
//   lease is still valid means another replica is purging (we step aside); otherwise we insert our
//   `running` row with a lease and commit, which releases the lock with the transaction;
// - every batch is one transaction that first renews the lease of OUR row (and sets its own
//   statement_timeout / lock_timeout with SET LOCAL semantics), so a replica that lost its lease
//   stops before deleting anything more;
// - a replica that died leaves a lease that simply expires (LEASE_MS after its last batch); the
//   next run marks that row failed and takes over.
// Nothing is held between transactions, so after a run pg_locks shows no advisory lock.
import pg from "pg";
import { driverUrl } from "../../core/config/database-urls";
import { env } from "../../core/config/env";
import { AppError } from "../../core/errors";

/** 'k','h','p','g' — a constant of our own, distinct from the migration locks. */
export const PURGE_LOCK_KEY = 0x6b687067;
const DEFAULT_STATEMENT_TIMEOUT_MS = 60_000;
const ABANDONED = "abandoned: its replica stopped renewing the purge lease";

export type PurgeConnection = {
  query<T extends pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<pg.QueryResult<T>>;
};

class PurgeLeaseLost extends Error {
  constructor() {
    super("lost the purge lease (this run stalled past it and another run took over)");
    this.name = "PurgeLeaseLost";
  }
}

export type PurgeLease = {
  /** Our `purge_runs` row, inserted as `running`. */
  runId: bigint;
  /** Runs `work` in one transaction that renews the lease first; throws PurgeLeaseLost if it is gone. */
  batch<T>(work: (connection: PurgeConnection) => Promise<T>): Promise<T>;
  /** Closes the connection; never throws. */
  close(): Promise<void>;
};

export type PurgeLeaseResult = { locked: true; lease: PurgeLease } | { locked: false };

export async function openPurgeLease(options: {
  trigger: string;
  startedAt: Date;
  scheduledFor?: Date;
  statementTimeoutMs?: number;
}): Promise<PurgeLeaseResult> {
  const { DATABASE_URL } = env();
  if (!DATABASE_URL) throw new AppError("invalid_setting", "invalid setting DATABASE_URL: is not set");
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  // Longer than any one batch can take (its statement_timeout) plus the pause after it.
  const leaseMs = statementTimeoutMs + 60_000;
  const client = new pg.Client({
    connectionString: driverUrl(DATABASE_URL),
    application_name: "keyhook-purge",
    keepAlive: true,
    connectionTimeoutMillis: 5_000,
  });
  // An idle socket error must not crash the process; the next query reports it.
  client.on("error", () => {});
  await client.connect();
  const close = () => client.end().catch(() => {});

  let runId: bigint | null;
  try {
    runId = await inTransaction(client, async () => {
      const lock = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS locked", [
        PURGE_LOCK_KEY,
      ]);
      if (!lock.rows[0]?.locked) return null;
      // The snapshot of this statement sees every run committed before we got the lock.
      const inserted = await client.query<{ id: string }>(
        `WITH abandoned AS (
           UPDATE purge_runs SET status = 'failed', finished_at = now(), error = $4
            WHERE status = 'running' AND lease_until < now()
         )
         INSERT INTO purge_runs (trigger, status, started_at, lease_until, scheduled_for)
         SELECT $1, 'running', $2::timestamptz, now() + make_interval(secs => $3::int / 1000.0), $5::timestamptz
          WHERE NOT EXISTS (SELECT 1 FROM purge_runs WHERE status = 'running' AND lease_until >= now())
         RETURNING id::text`,
        [options.trigger, options.startedAt, leaseMs, ABANDONED, options.scheduledFor ?? null],
      );
      return inserted.rows[0] ? BigInt(inserted.rows[0].id) : null;
    });
  } catch (error) {
    await close();
    throw error;
  }
  if (runId === null) {
    await close();
    return { locked: false };
  }

  const id = runId;
  const batch = <T>(work: (connection: PurgeConnection) => Promise<T>) =>
    inTransaction(client, async () => {
      // A batch that cannot get a row lock quickly gives up (the next run retries) rather than
      // queueing behind, and in front of, ingest. Its commit does not wait for the WAL flush
      // (synchronous_commit off): a crash can only undo the last batches, which the next run
      // redoes (the rollup subtraction is in the same transaction), and ingest's commits stop
      // sharing fsyncs with the purge's. Transaction-local: nothing stays on a pooled server connection.
      const renewed = await client.query<{ ours: boolean }>(
        `WITH lease AS (
           UPDATE purge_runs SET lease_until = now() + make_interval(secs => $2::int / 1000.0)
            WHERE id = $1::bigint AND status = 'running' RETURNING id
         )
         SELECT set_config('statement_timeout', $3, true), set_config('lock_timeout', '5s', true),
                set_config('synchronous_commit', 'off', true),
                EXISTS (SELECT 1 FROM lease) AS ours`,
        [id.toString(), leaseMs, `${statementTimeoutMs}ms`],
      );
      if (!renewed.rows[0]?.ours) throw new PurgeLeaseLost();
      return work({ query: (sql, values) => client.query(sql, values) });
    });
  return { locked: true, lease: { runId: id, batch, close } };
}

async function inTransaction<T>(client: pg.Client, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
