import "server-only";
// Is this URL PostgreSQL itself, or a pooler in front of it? Asked at start for both database
// URLs, so a pooler nobody declared (`pgbouncer=true`) is refused then, not found under load.
//
// The probe: connect with a startup option of our own (`-c keyhook.pooler_probe=on`) and read it
// back. PostgreSQL applies it; PgBouncer refuses the `options` startup parameter (08P01
// "unsupported startup parameter"), or, with ignore_startup_parameters=options, drops it.
import pg from "pg";
import { driverUrl, isPooledUrl } from "../../lib/core/config/database-urls";
import { AppError } from "../../lib/core/errors";

export type ProbeResult = { pooler: false } | { pooler: true; evidence: string };

export async function probeForPooler(url: string): Promise<ProbeResult> {
  const client = new pg.Client({
    connectionString: driverUrl(url),
    connectionTimeoutMillis: 5_000,
    options: "-c keyhook.pooler_probe=on",
    application_name: "keyhook-probe",
  });
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    if (error instanceof pg.DatabaseError && error.code === "08P01" && /startup parameter/i.test(error.message)) {
      return { pooler: true, evidence: "it refuses the startup parameter `options`" };
    }
    throw error; // unreachable, wrong password, …: reported as such by the caller
  }
  try {
    const { rows } = await client.query<{ value: string | null }>(
      "SELECT current_setting('keyhook.pooler_probe', true) AS value",
    );
    return rows[0]?.value === "on"
      ? { pooler: false }
      : { pooler: true, evidence: "it drops the startup parameter `options`" };
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Refuses, in one line naming the setting, the URLs a pooler makes dangerous: the URL migrations,
 * their lock and the job queue's LISTEN use (DIRECT_DATABASE_URL, else DATABASE_URL) reaching a
 * pooler, and DATABASE_URL reaching one without `pgbouncer=true` (Prisma's named statements then
 * collide on shared server connections under load: `prepared statement "keyhook_N" already
 * exists`). Run by every process at start: the launcher and the artifact before migrating, the
 * worker before its queue.
 */
export async function assertDatabaseUrls(urls: { databaseUrl: string; directDatabaseUrl?: string }): Promise<void> {
  if (urls.directDatabaseUrl) {
    const direct = await probeForPooler(urls.directDatabaseUrl);
    if (direct.pooler)
      throw new AppError(
        "invalid_setting",
        `invalid setting DIRECT_DATABASE_URL: reaches a connection pooler (${direct.evidence}), not PostgreSQL itself`,
      );
    if (isPooledUrl(urls.databaseUrl)) return; // declared: Prisma runs it without named statements
  }
  const probe = await probeForPooler(urls.databaseUrl);
  if (!probe.pooler) return;
  throw new AppError(
    "invalid_setting",
    urls.directDatabaseUrl
      ? `invalid setting DATABASE_URL: reaches a connection pooler (${probe.evidence}): add pgbouncer=true to DATABASE_URL`
      : `invalid setting DATABASE_URL: reaches a connection pooler (${probe.evidence}): add pgbouncer=true to DATABASE_URL and set DIRECT_DATABASE_URL to PostgreSQL itself`,
  );
}
