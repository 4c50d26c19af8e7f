// Aims a SIGKILL at the worst moment: just after the app's transaction COMMITTED, before its 200
// leaves the process. A trigger in the run's own database sends a NOTIFY on every claim, and
// PostgreSQL delivers a NOTIFY only when the transaction commits — so the notification is the
// commit itself. Test instrumentation only: it is created by the harness in its throwaway
// database, never by a migration, and it changes nothing the ingest reads or writes.
import pg from "pg";

const CHANNEL = "keyhook_faults_commit";

export async function installCommitSignal(databaseUrl: string): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(`
      CREATE OR REPLACE FUNCTION keyhook_faults_notify_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${CHANNEL}', NEW.event_id);
        RETURN NULL;
      END;
      $$;
      CREATE OR REPLACE TRIGGER keyhook_faults_notify_commit AFTER INSERT ON processed_events
        FOR EACH ROW EXECUTE FUNCTION keyhook_faults_notify_commit();`);
  } finally {
    await db.end();
  }
}

/**
 * Resolves at the next commit of a claim (true), or after timeoutMs (false). A connection of its
 * own each time: PostgreSQL restarts in between, and a listener must not outlive its use.
 */
export async function nextCommit(databaseUrl: string, timeoutMs: number): Promise<boolean> {
  const db = new pg.Client({ connectionString: databaseUrl });
  db.on("error", () => {}); // a restart mid-wait: the timeout answers
  try {
    await db.connect();
    await db.query(`LISTEN ${CHANNEL}`);
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      db.once("notification", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  } catch {
    return false;
  } finally {
    // Not awaited: the caller kills the app first; the connection closes right after.
    void db.end().catch(() => {});
  }
}
