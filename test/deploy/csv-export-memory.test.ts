// The full ledger CSV export streams at bounded memory: on a 1,000,000-row ledger, the deployable
// artifact's resident memory grows by less than EXPORT_RSS_BOUND_MIB over the whole export (after a
// warm-up export has loaded the route, the Prisma client and the CSV modules). An export that
// builds a JS object per row, or ignores backpressure, grows well past it (docs/decisions/0012-…).
// `npm run bench:export` measures the same at 10,000,000 rows, with a fast and a slow reader.
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/passwords";
import { signInCookie } from "../support/sign-in";
import { DEMO_TOTP_SECRET } from "../../lib/operations/demo/demo-data";
import { copyArtifact, createEmptyDatabase, DEPLOY_PORT, startArtifact, type RunningArtifact } from "./standalone-app";

const PORT = DEPLOY_PORT + 6;
const ROWS = 1_000_000;
const EXPORT_RSS_BOUND_MIB = 40;
const EMAIL = "export-support@keyhook.test";
const PASSWORD = "export-memory-test-password";

describe("the full ledger CSV export at 1,000,000 rows", () => {
  let artifact: ReturnType<typeof copyArtifact>;
  let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
  let app: RunningArtifact;

  beforeAll(async () => {
    artifact = copyArtifact();
    database = await createEmptyDatabase();
    app = await startArtifact({ dir: artifact.dir, databaseUrl: database.url, port: PORT });
    // Filled after the start, which migrated the empty database.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      await db.query("SET synchronous_commit = off");
      await db.query(
        `INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, reason, received_at, processed_at)
         SELECT 'district-' || lpad((g % 1000)::text, 6, '0'), 'evt_' || g,
                (ARRAY['key.created','key.rotated','key.revoked'])[1 + g % 3], 'key_' || (g % 5000), g,
                (ARRAY['applied','applied','applied','stale','quarantined','ignored'])[1 + g % 6],
                CASE WHEN g % 6 = 4 THEN 'sequence gap, "held"' END,
                now() - interval '14 days' + g * interval '1 second', now()
         FROM generate_series(1, $1::int) g`,
        [ROWS],
      );
      await db.query("ANALYZE processed_events");
      await db.query(
        `INSERT INTO users (id, email, name, role, password_hash) VALUES ($1, $2, 'Export Test', 'support', $3)`,
        ["u_export_memory", EMAIL, await hashPassword(PASSWORD)],
      );
      // Support must hold a second factor: the demo key (signInCookie answers with its codes),
      // stored as a value from before sealing, which the app reads as it is.
      await db.query(
        `INSERT INTO mfa_factors (id, user_id, kind, label, totp_secret, confirmed_at) VALUES ('f_export', 'u_export_memory', 'totp', 'demo', $1, now())`,
        [DEMO_TOTP_SECRET],
      );
    } finally {
      await db.end();
    }
  }, 180_000);

  afterAll(async () => {
    await app?.kill();
    await database?.drop();
    artifact?.remove();
  });

  it(`streams every row while the server's RSS grows by less than ${EXPORT_RSS_BOUND_MIB} MiB`, async () => {
    const cookie = await signInCookie(app.baseUrl, EMAIL, PASSWORD);
    const warm = await fetch(`${app.baseUrl}/ledger/export?outcome=quarantined&tenant=district-000004`, {
      headers: { cookie },
    });
    expect(warm.status).toBe(200);
    await warm.arrayBuffer();

    const pid = app.child.pid!;
    const rssBefore = rssMiB(pid);
    let rssMax = rssBefore;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMiB(pid))), 100);
    let lines = 0;
    try {
      const response = await fetch(`${app.baseUrl}/ledger/export`, { headers: { cookie } });
      expect(response.status).toBe(200);
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
      }
    } finally {
      clearInterval(sampler);
    }
    rssMax = Math.max(rssMax, rssMiB(pid));
    expect(lines).toBe(ROWS + 1);
    console.log(`CSV export of ${ROWS} rows: server RSS ${rssBefore.toFixed(0)} → max ${rssMax.toFixed(0)} MiB`);
    expect(rssMax - rssBefore).toBeLessThan(EXPORT_RSS_BOUND_MIB);
  }, 180_000);
});

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : 0;
}
