import "server-only";
// Serialises the migrations of N replicas starting at once: the first takes a session advisory
// lock on a DIRECT connection (a pooler would hand the lock to whichever server connection ran
// the statement and keep it there), migrates, releases; the others wait, then find nothing to do.
//
// Waiting is a poll of pg_try_advisory_lock rather than a blocking pg_advisory_lock, so a waiting
// replica stays interruptible (SIGTERM aborts `signal` and it leaves at once), says who it waits
// for, and gives up loudly after `timeoutMs` instead of hanging for ever behind a stuck session.
// A crashed holder closes its socket and PostgreSQL frees the lock; keepalive bounds a vanished one.
// Advisory locks are not replicated: after a failover nobody holds it on the new primary, and a
// replica that was waiting connects again and takes it there.
import pg from "pg";

/** 'k','h','m','g' — ours, distinct from the schema engine's own lock (72707369), which it still takes. */
export const MIGRATION_LOCK_KEY = 0x6b686d67;
const POLL_MS = 250;
const SAY_AGAIN_MS = 10_000;

export type MigrationLockOptions = {
  /** A direct connection string (never a pooler). */
  url: string;
  timeoutMs: number;
  signal?: AbortSignal;
  log?: (message: string) => void;
};

export async function withMigrationLock<T>(options: MigrationLockOptions, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  // The first connection fails fast (a wrong URL or password is not worth waiting for).
  let client = await acquire(await connect(options.url), options);
  let lastSaid = -Infinity;
  try {
    for (;;) {
      try {
        return await work();
      } catch (error) {
        // Work that failed because the database went away (a failover: the lock's own session is
        // gone too, or the new primary was still read-only) is done again under the lock, taken
        // anew if its session is gone; the migrations' own bookkeeping makes that safe (applied
        // ones are skipped, one cut half-way is recorded failed and stops there).
        const remaining = options.timeoutMs - (Date.now() - started);
        const onPrimary = await sessionOnPrimary(client);
        if (remaining <= 0 || (onPrimary && !lostTheDatabase(error))) throw error;
        if (Date.now() - lastSaid >= SAY_AGAIN_MS) {
          options.log?.(`lost the database while migrating (${String(error)}); trying again under the lock`);
          lastSaid = Date.now();
        }
        if (!onPrimary) {
          await client.end().catch(() => {});
          client = await acquire(null, { ...options, timeoutMs: remaining });
        } else await abortableDelay(POLL_MS, options.signal);
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end().catch(() => {});
  }
}

/** The lock's session still works, on a server that takes writes. */
async function sessionOnPrimary(client: pg.Client): Promise<boolean> {
  try {
    const { rows } = await client.query<{ standby: boolean }>("SELECT pg_is_in_recovery() AS standby");
    return rows[0]?.standby === false;
  } catch {
    return false;
  }
}

/**
 * An error the database going away explains: the connection lost or refused, the server shutting
 * down, or read-only (a standby, promoted a moment later). Anything else is the migration's own.
 */
function lostTheDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && (/^(08|57P0)/.test(code) || code === "25006" || LOST_KINDS.has(code))) return true;
  // The schema engine reports PostgreSQL's errors as text, without their code.
  return LOST_MESSAGE.test(error instanceof Error ? error.message : String(error));
}
const LOST_MESSAGE =
  /connection terminated|terminating connection|read-only transaction|the database system is (starting up|shutting down|in recovery)|ECONNRESET|ECONNREFUSED/i;
const LOST_KINDS = new Set(["ConnectionClosed", "DatabaseNotReachable", "SocketTimeout", "ECONNRESET", "ECONNREFUSED"]);

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    application_name: "keyhook-migrate",
    keepAlive: true,
    connectionTimeoutMillis: 10_000,
  });
  client.on("error", () => {}); // an idle socket error surfaces on the next query
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return client;
}

/**
 * Polls until the lock is ours; returns the session that holds it. A session lost while waiting
 * (a failover: the lock we waited for went with the old primary) is replaced by a new one, until
 * the timeout.
 */
async function acquire(first: pg.Client | null, options: MigrationLockOptions): Promise<pg.Client> {
  const started = Date.now();
  let lastSaid = -Infinity;
  let client: pg.Client | null = first;
  for (;;) {
    throwIfAborted(options.signal);
    const waited = Date.now() - started;
    try {
      client ??= await connect(options.url);
      const { rows } = await client.query<{ locked: boolean; standby: boolean }>(
        "SELECT pg_try_advisory_lock($1) AS locked, pg_is_in_recovery() AS standby",
        [MIGRATION_LOCK_KEY],
      );
      // A standby takes advisory locks too, but not the migrations' writes: one being promoted
      // (a failover) is waited for; a URL that names a standby for good fails at the timeout.
      if (rows[0]?.locked && rows[0].standby) {
        await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
        if (waited >= options.timeoutMs)
          throw new MigrationLockTimeout(
            `gave up after ${Math.round(waited / 1000)} s: the migration URL reaches a standby (in recovery), not the primary`,
          );
        if (Date.now() - lastSaid >= SAY_AGAIN_MS) {
          options.log?.("the migration URL reaches a standby (in recovery): waiting for it to be the primary");
          lastSaid = Date.now();
        }
        await abortableDelay(POLL_MS, options.signal);
        continue;
      }
      if (rows[0]?.locked) return client;
      if (waited >= options.timeoutMs || Date.now() - lastSaid >= SAY_AGAIN_MS) {
        const holder = await describeHolder(client);
        if (waited >= options.timeoutMs) {
          throw new MigrationLockTimeout(
            `gave up after ${Math.round(waited / 1000)} s waiting for the migration lock held by ${holder}` +
              ` (MIGRATION_LOCK_TIMEOUT_MS=${options.timeoutMs}); if no replica is migrating, end that session`,
          );
        }
        options.log?.(`waiting for the migration lock held by ${holder}`);
        lastSaid = Date.now();
      }
    } catch (error) {
      if (error instanceof MigrationLockTimeout) {
        await client?.end().catch(() => {});
        throw error;
      }
      await client?.end().catch(() => {});
      client = null;
      if (waited >= options.timeoutMs) throw error;
      if (Date.now() - lastSaid >= SAY_AGAIN_MS) {
        options.log?.(`lost the database while waiting for the migration lock (${String(error)}); connecting again`);
        lastSaid = Date.now();
      }
    }
    await abortableDelay(POLL_MS, options.signal);
  }
}

class MigrationLockTimeout extends Error {}

async function describeHolder(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ pid: number; application_name: string | null; since: Date | null }>(
    `SELECT a.pid, a.application_name, a.backend_start AS since
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1
      LIMIT 1`,
    [MIGRATION_LOCK_KEY],
  );
  const row = rows[0];
  if (!row) return "another session (just released)";
  return `PostgreSQL backend ${row.pid} (${row.application_name || "no application_name"}, connected ${row.since?.toISOString() ?? "?"})`;
}

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new Error("interrupted while waiting for the migration lock");
}

function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
