import "server-only";
// The timestamp prefix of a new migration directory.
import { DEFAULT_MIGRATIONS_DIR, listMigrationNames } from "./migrations-dir";

/** UTC YYYYMMDDHHMMSS, and always after the last migration even if this clock is behind. */
export async function nextMigrationTimestamp(migrationsDir = DEFAULT_MIGRATIONS_DIR): Promise<string> {
  const now = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const last = (await listMigrationNames(migrationsDir)).at(-1)?.slice(0, 14);
  return last && /^\d{14}$/.test(last) && now <= last ? String(BigInt(last) + 1n) : now;
}
