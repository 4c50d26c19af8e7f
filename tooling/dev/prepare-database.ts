import "server-only";
// "A migrated database to talk to", shared by the launcher, `npm run db:migrate`, test setup and
// benchmarks: DATABASE_URL when it is set, otherwise the embedded PostgreSQL in .data/postgres.
import { applyMigrations } from "../migrations/wasm-engine";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded-postgres";

export type PreparedDatabase = {
  databaseUrl: string;
  /** The embedded server, when DATABASE_URL was not given (for createDatabase, adminUrl, pid). */
  embedded?: EmbeddedPostgres;
  /** Migrations applied by this call. */
  applied: string[];
  /** Stops the embedded server if this call started it; nothing otherwise. */
  stop(): Promise<void>;
};

export async function prepareDatabase(
  options: {
    /** Unset or empty: start (or share) the embedded server. */
    databaseUrl?: string;
    /** PostgreSQL itself, when databaseUrl goes through a pooler: migrations and their lock use it. */
    directDatabaseUrl?: string;
    /** Aborted on SIGTERM: a replica waiting for another's migrations leaves at once. */
    signal?: AbortSignal;
    migrationLockTimeoutMs?: number;
    dataDir?: string;
    port?: number;
    migrationsDir?: string;
    onUnexpectedExit?: (reason: string) => void;
  } = {},
): Promise<PreparedDatabase> {
  const embedded = options.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: options.dataDir,
        port: options.port,
        onUnexpectedExit: options.onUnexpectedExit,
      });
  const databaseUrl = options.databaseUrl || embedded!.databaseUrl;
  try {
    const applied = await applyMigrations({
      databaseUrl,
      directDatabaseUrl: options.databaseUrl ? options.directDatabaseUrl : undefined,
      migrationsDir: options.migrationsDir,
      signal: options.signal,
      lockTimeoutMs: options.migrationLockTimeoutMs,
      notice: (message) => console.log(`keyhook: ${message}`),
    });
    return { databaseUrl, embedded, applied, stop: async () => embedded?.stop() };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
