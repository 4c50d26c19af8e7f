// `npm run db:migrate`: applies pending migrations to DATABASE_URL, or, when it is unset, to the
// embedded PostgreSQL in .data/postgres (started for the occasion, or shared with a running
// `npm run dev`). Only DATABASE_URL and DIRECT_DATABASE_URL (used instead when set: migrations
// never go through a pooler) are read, so it works without the app's other settings.
import { prepareDatabase } from "../tooling/dev/prepare-database";

const started = performance.now();
try {
  const database = await prepareDatabase({
    databaseUrl: process.env.DATABASE_URL,
    directDatabaseUrl: process.env.DIRECT_DATABASE_URL || undefined,
  });
  await database.stop();
  const target = database.embedded ? `embedded PostgreSQL (${database.embedded.dataDir})` : "DATABASE_URL";
  for (const name of database.applied) console.log(`applied ${name}`);
  if (database.applied.length === 0) console.log(`no pending migrations on ${target}`);
  else
    console.log(
      `${database.applied.length} migration(s) applied to ${target} in ${Math.round(performance.now() - started)} ms`,
    );
} catch (error) {
  console.error(`keyhook: migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
