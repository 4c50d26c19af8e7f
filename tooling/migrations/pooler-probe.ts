import "server-only";
// Is this URL PostgreSQL itself, or a pooler in front of it? Asked once before migrating, so a
// DATABASE_URL that reaches PgBouncer without saying so (`pgbouncer=true`) is refused at start
// instead of breaking the migration lock.
//
// The probe: connect with a startup option of our own (`-c keyhook.pooler_probe=on`) and read it
// back. PostgreSQL applies it; PgBouncer refuses the `options` startup parameter (08P01
// "unsupported startup parameter"), or, with ignore_startup_parameters=options, drops it.
import pg from "pg";
import { driverUrl } from "../../lib/database-urls";

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
