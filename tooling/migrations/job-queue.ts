import "server-only";
// Installs (or upgrades) the job queue's own schema, `graphile_worker`, as part of OUR migration
// step — after the Prisma migrations, under the same migration lock — so it exists before the
// app's first enqueue (enqueueOutbox calls graphile_worker.add_job in the app's transaction) and
// no running app ever waits on it. graphile-worker versions its schema itself (its migrations
// table); a worker starting later finds it current and changes nothing.
import { Logger, runMigrations } from "graphile-worker";

const quiet = new Logger(() => (level, message) => {
  if (level === "error") console.error(`keyhook: job queue migration: ${message}`);
});

export async function installJobQueue(options: { url: string }): Promise<void> {
  await runMigrations({ connectionString: options.url, logger: quiet });
}
