// Gives each test file its own database, cloned from the migrated template in milliseconds, and
// points the app's one env reader at it before any test module creates the Prisma client.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, inject } from "vitest";

const TEMPLATE_DATABASE = "keyhook_test_template";
const adminUrl = inject("postgresAdminUrl");
const name = `keyhook_test_${randomBytes(6).toString("hex")}`;

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`));
const url = new URL(adminUrl);
url.pathname = `/${name}`;
process.env.DATABASE_URL = url.toString();

afterAll(async () => {
  const { disconnectDb } = await import("@/lib/core/db/client");
  await disconnectDb();
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
});
