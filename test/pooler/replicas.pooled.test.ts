// Real app replicas (test/support/replica-server.ts: migrate as `npm start` does, then serve the
// ingest route and readiness) through a transaction-mode PgBouncer: two starting at the same
// instant on an empty database, a 300-delivery signed run, and a duplicate storm split across two.
import "../support/via-pooler";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it, inject } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { listMigrationNames } from "@/tooling/migrations/migrations-dir";
import { buildKeyEvent, signDelivery } from "@/lib/operations/provider/signed-delivery";
import { startIngestServer, type RunningServer } from "../support/child-process";
import { resetDatabase } from "../support/state";
import { directUrl, pooledUrl } from "../support/via-pooler";
import { TEST_SECRET } from "../support/webhooks";

const REPLICA = "test/support/replica-server.ts";
let replicas: RunningServer[] = [];
const scratch: string[] = [];
const adminUrl = inject("postgresAdminUrl");

beforeEach(resetDatabase);
afterEach(async () => {
  await Promise.all(replicas.map((r) => r.kill("SIGTERM")));
  replicas = [];
  await admin(async (client) => {
    for (const name of scratch.splice(0)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
});

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** An empty database (never migrated): its direct and pooled URLs. */
async function emptyDatabase(): Promise<{ direct: string; pooled: string }> {
  const name = `keyhook_empty_${randomBytes(5).toString("hex")}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  scratch.push(name);
  const rename = (url: string) => {
    const copy = new URL(url);
    copy.pathname = `/${name}`;
    return copy.toString();
  };
  return { direct: rename(directUrl()), pooled: rename(pooledUrl()) };
}

async function startReplicas(count: number, env: Record<string, string>): Promise<RunningServer[]> {
  const started = await Promise.all(
    Array.from({ length: count }, () => startIngestServer({ LOG_LEVEL: "warn", ...env }, REPLICA)),
  );
  replicas.push(...started);
  return started;
}

const ready = (replica: RunningServer) =>
  fetch(`http://127.0.0.1:${replica.port}/api/health/ready`).then((r) => r.status);

async function migrationRows(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (
      await client.query<{ migration_name: string; copies: number; failed: number }>(
        `SELECT migration_name, count(*)::int AS copies,
              count(*) FILTER (WHERE finished_at IS NULL OR rolled_back_at IS NOT NULL)::int AS failed
         FROM _prisma_migrations GROUP BY migration_name ORDER BY migration_name`,
      )
    ).rows;
  } finally {
    await client.end();
  }
}

/** Posts signed deliveries to the replicas (round robin), `concurrency` at a time. */
async function post(bodies: Record<string, unknown>[], targets: RunningServer[], concurrency: number) {
  const statuses: number[] = [];
  const outcomes: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < bodies.length; i = next++) {
        const text = JSON.stringify(bodies[i]);
        const signed = signDelivery({ body: text, webhookId: String(bodies[i]!.id), secrets: [TEST_SECRET] });
        const response = await fetch(`http://127.0.0.1:${targets[i % targets.length]!.port}/api/webhooks/keys`, {
          method: "POST",
          headers: signed.headers,
          body: text,
        });
        statuses.push(response.status);
        outcomes.push(String(((await response.json()) as { outcome?: string }).outcome));
      }
    }),
  );
  return { statuses, outcomes };
}

const count = <T>(values: T[], value: T) => values.filter((v) => v === value).length;

describe("two replicas starting at the same instant on an empty database", () => {
  it.each([
    ["direct", (db: { direct: string; pooled: string }) => ({ DATABASE_URL: db.direct, DIRECT_DATABASE_URL: "" })],
    [
      "pooled",
      (db: { direct: string; pooled: string }) => ({ DATABASE_URL: db.pooled, DIRECT_DATABASE_URL: db.direct }),
    ],
  ])(
    "%s: both become ready, every migration is recorded once, none failed",
    async (_name, urls) => {
      const db = await emptyDatabase();
      const both = await startReplicas(2, urls(db));
      expect(await Promise.all(both.map(ready))).toEqual([200, 200]);
      const names = await listMigrationNames();
      expect(await migrationRows(db.direct)).toEqual(
        names.map((migration_name) => ({ migration_name, copies: 1, failed: 0 })),
      );
      // One of them applied everything, the other waited and found nothing to do.
      const applied = both.map((r) => r.output.join("").match(/migrated: (\[.*\])/)?.[1]).sort();
      expect(applied).toEqual([JSON.stringify([]), JSON.stringify(names)].sort());
    },
    60_000,
  );

  it("a pooled DATABASE_URL that does not say so is refused at start, naming both settings", async () => {
    const db = await emptyDatabase();
    const undeclared = new URL(db.pooled);
    undeclared.searchParams.delete("pgbouncer");
    await expect(
      startIngestServer({ DATABASE_URL: undeclared.toString(), DIRECT_DATABASE_URL: "" }, REPLICA),
    ).rejects.toThrow(
      /invalid setting DATABASE_URL: reaches a connection pooler .*pgbouncer=true.*DIRECT_DATABASE_URL/,
    );
  });
});

describe("signed load through the pooler", () => {
  it("300 deliveries at concurrency 8: 0 non-2xx, 300 receipts", async () => {
    const [replica] = await startReplicas(1, {});
    const bodies = Array.from({ length: 300 }, (_, i) =>
      buildKeyEvent({
        type: "key.created",
        tenantId: `district-load-${i % 30}`,
        keyId: `key_load_${i}`,
        sequence: Math.floor(i / 30) + 1,
      }),
    );
    const { statuses, outcomes } = await post(bodies, [replica!], 8);
    expect(statuses.filter((s) => s < 200 || s > 299)).toEqual([]);
    expect(count(outcomes, "applied") + count(outcomes, "stale")).toBe(300);
    expect(await prisma.receipt.count({ where: { status: 200 } })).toBe(300);
    expect(await prisma.receipt.count()).toBe(300);
  }, 120_000);

  it("a duplicate storm (200 ids × 10 copies) split across two replicas: 200 applied, 0 non-2xx, ≤ 1 active key per tenant", async () => {
    const pair = await startReplicas(2, {});
    const unique = Array.from({ length: 200 }, (_, i) =>
      buildKeyEvent({ type: "key.created", tenantId: `district-storm-${i}`, keyId: `key_storm_${i}`, sequence: 1 }),
    );
    // Copy k of every id, then the next copy: each id is in flight on both replicas at once.
    const storm = Array.from({ length: 10 }, () => unique).flat();
    const { statuses, outcomes } = await post(storm, pair, 16);
    expect(statuses.filter((s) => s < 200 || s > 299)).toEqual([]);
    expect(count(outcomes, "applied")).toBe(200);
    expect(count(outcomes, "duplicate")).toBe(1800);
    expect(await prisma.processedEvent.count()).toBe(200);
    const crowded = await prisma.$queryRaw<{ tenant_id: string }[]>`
      SELECT tenant_id FROM api_keys WHERE status = 'active' GROUP BY tenant_id HAVING count(*) > 1`;
    expect(crowded).toEqual([]);
    expect(await prisma.apiKey.count({ where: { status: "active" } })).toBe(200);
  }, 180_000);
});
