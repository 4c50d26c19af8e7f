import "server-only";
// The migrations directory as the running app sees it: the health route compares its names with
// the database's _prisma_migrations. Applying migrations is tooling (tooling/migrations).
import { readdir } from "node:fs/promises";

export const DEFAULT_MIGRATIONS_DIR = "prisma/migrations";

/** Migration directory names, in the order they apply (their timestamp prefix). */
export async function listMigrationNames(migrationsDir = DEFAULT_MIGRATIONS_DIR): Promise<string[]> {
  // The migrations folder is read at run time (health route), never bundled.
  const entries = await readdir(/*turbopackIgnore: true*/ migrationsDir, { withFileTypes: true }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    },
  );
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
