// The run's own PostgreSQL: one embedded server on a fixed data directory and port, which the
// nemesis stops and starts again mid-run. Same directory and port on purpose: the app keeps its
// DATABASE_URL and its pool has to find its way back on its own.
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { waitForProcessExit } from "../tooling/dev/process-info";
import { applyMigrations } from "../tooling/migrations/wasm-engine";

export const FAULTS_DATABASE = "keyhook_faults";

export type DatabaseServer = {
  databaseUrl: string;
  /**
   * Stop, pause, start. "fast" is an orderly shutdown (open transactions roll back, clients are
   * cut off, checkpoint); "immediate" is a crash (SIGQUIT: no checkpoint, WAL replay at the next
   * start), which is what proves an acknowledged commit was really durable.
   */
  restart(options: { downMs: number; mode: "fast" | "immediate" }): Promise<{ downMs: number }>;
  stop(): Promise<void>;
};

export async function startDatabaseServer(options: {
  dataDir: string;
  port: number;
  onUnexpectedExit: (reason: string) => void;
}): Promise<DatabaseServer> {
  let stopping = false;
  const start = () =>
    startEmbeddedPostgres({
      dataDir: options.dataDir,
      port: options.port,
      database: "postgres",
      // The app's pool (10) plus the checker's; a little headroom for connections a killed app left behind.
      settings: { max_connections: "60" },
      onUnexpectedExit: (reason) => {
        if (!stopping) options.onUnexpectedExit(reason);
      },
    });
  let server: EmbeddedPostgres = await start();

  // A fresh database for every run; the data directory (initdb) is reused between runs.
  const admin = new pg.Client({ connectionString: server.adminUrl("postgres") });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${FAULTS_DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${FAULTS_DATABASE}`);
  await admin.end();
  const databaseUrl = server.adminUrl(FAULTS_DATABASE);
  await applyMigrations({ databaseUrl });

  return {
    databaseUrl,
    async restart({ downMs, mode }) {
      const started = performance.now();
      stopping = true;
      if (mode === "immediate" && server.pid) {
        process.kill(server.pid, "SIGQUIT");
        if (!(await waitForProcessExit(server.pid, 10_000)))
          throw new Error(`PostgreSQL (pid ${server.pid}) survived SIGQUIT`);
      } else {
        await server.stop();
      }
      await new Promise((resolve) => setTimeout(resolve, downMs));
      server = await start();
      stopping = false;
      return { downMs: Math.round(performance.now() - started) };
    },
    async stop() {
      stopping = true;
      await server.stop();
    },
  };
}
