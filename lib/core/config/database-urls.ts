// Which connection string does what, when DATABASE_URL may go through a transaction-mode pooler
// (PgBouncer, or a managed pooler built on it) and DIRECT_DATABASE_URL reaches PostgreSQL itself.
//
// "Pooled" is declared, as Prisma does: `pgbouncer=true` in DATABASE_URL. A pooled connection
// gives no session: every transaction may run on another server connection, so nothing may rely
// on session state (startup `options`, named prepared statements, session advisory locks, SET).
// The launcher also probes an undeclared DATABASE_URL once (database-probe.ts) and refuses a
// pooler it finds, so a forgotten flag cannot bring those session-state failures back.
// No imports: lib/core/config/env.ts validates with these and must stay free of cycles.

export const POOLED_WITHOUT_DIRECT =
  "is required when DATABASE_URL goes through a connection pooler (pgbouncer=true): set DIRECT_DATABASE_URL to PostgreSQL itself, for migrations and their lock";

/** `pgbouncer=true` (Prisma's flag) in the URL's query. */
export function isPooledUrl(url: string): boolean {
  try {
    return new URL(url).searchParams.get("pgbouncer") === "true";
  } catch {
    return false;
  }
}

/** The URL as node-postgres should see it: our flag removed (pg would pass it on as a setting). */
export function driverUrl(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has("pgbouncer")) return url;
  parsed.searchParams.delete("pgbouncer");
  return parsed.toString();
}

/** Where migrations and their lock go: the direct URL when there is one, else DATABASE_URL. */
export function migrationUrl(urls: { databaseUrl: string; directDatabaseUrl?: string }): string {
  return driverUrl(urls.directDatabaseUrl || urls.databaseUrl);
}
