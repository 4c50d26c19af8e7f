import "server-only";
// The purge's own PostgreSQL connection, outside the Prisma pool, holding a SESSION-level
// advisory lock for the whole run.
//
// Why a session lock on a dedicated connection rather than pg_try_advisory_xact_lock per batch:
// - a run is many short transactions (one per batch, so ingest never waits behind a long one);
//   an xact lock would be released between batches, letting a second replica interleave its own
//   run with ours instead of stepping aside;
// - the batches run on the very connection that holds the lock, so if that connection dies the
//   lock and the work stop together: there is never a replica that lost the lock but keeps
//   deleting;
// - it never takes a slot from the app's pool (DATABASE_POOL_SIZE), which ingest needs.
// A crashed process closes its socket and PostgreSQL releases the lock; TCP keepalive bounds how
// long a silently vanished peer can keep it.
import pg from "pg";
import { env } from "../env";
import { AppError } from "../errors";

/** 'k','h','p','g' — a constant of our own, distinct from Prisma's migration lock (72707369). */
export const PURGE_LOCK_KEY = 0x6b687067;

export type PurgeConnection = {
  query<T extends pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<pg.QueryResult<T>>;
  /** Releases the lock (if held) and closes the connection; never throws. */
  close(): Promise<void>;
};

export type LockedPurgeConnection = { locked: true; connection: PurgeConnection } | { locked: false };

export async function openLockedPurgeConnection(options: { statementTimeoutMs?: number } = {}): Promise<LockedPurgeConnection> {
  const { DATABASE_URL } = env();
  if (!DATABASE_URL) throw new AppError("invalid_setting", "invalid setting DATABASE_URL: is not set");
  const client = new pg.Client({
    connectionString: DATABASE_URL,
    application_name: "keyhook-purge",
    keepAlive: true,
    connectionTimeoutMillis: 5_000,
    // A batch that cannot get a row lock quickly gives up (the next run retries) rather than
    // queueing behind, and in front of, ingest.
    options: `-c statement_timeout=${options.statementTimeoutMs ?? 60_000} -c lock_timeout=5000`,
  });
  // An idle socket error must not crash the process; the next query reports it.
  client.on("error", () => {});
  await client.connect();

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      await client.query("SELECT pg_advisory_unlock($1)", [PURGE_LOCK_KEY]);
    } catch {
      // The connection is gone, and with it the lock.
    }
    await client.end().catch(() => {});
  };

  try {
    const result = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [PURGE_LOCK_KEY]);
    if (!result.rows[0]?.locked) {
      await client.end().catch(() => {});
      return { locked: false };
    }
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return { locked: true, connection: { query: (sql, values) => client.query(sql, values), close } };
}
