// The guarantees that used to rest on session state, proved through a real transaction-mode
// PgBouncer: transaction-local settings of the ingest, the purge's lease and lock,
// and the pooler probe. Deliveries over HTTP to real processes are in replicas.pooled.test.ts.
import "../support/via-pooler";
import pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { env } from "@/lib/core/config/env";
import { parseEvent, type KeyEvent } from "@/lib/core/ingest/event-schema";
import { ingestStatement } from "@/lib/core/ingest/apply-key-event";
import { probeForPooler } from "@/tooling/migrations/pooler-probe";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { buildKeyEvent } from "@/lib/operations/provider/signed-delivery";
import { resetDatabase } from "../support/state";
import { directUrl, pooledUrl } from "../support/via-pooler";
import { DAY_MS, insertClaims } from "../support/ledger-rows";

beforeEach(resetDatabase);

async function direct<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: directUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const advisoryLocks = () =>
  direct(
    async (client) =>
      (
        await client.query(
          "SELECT pid, objid FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        )
      ).rows,
  );

describe("the app's database URL", () => {
  it("really goes through the pooler here, and the probe tells the two apart", async () => {
    expect(new URL(pooledUrl()).searchParams.get("pgbouncer")).toBe("true");
    expect(await probeForPooler(pooledUrl())).toMatchObject({
      pooler: true,
      evidence: expect.stringMatching(/startup parameter `options`/),
    });
    expect(await probeForPooler(directUrl())).toEqual({ pooler: false });
  });
});

describe("the ingest transaction through the pooler", () => {
  it("runs at READ COMMITTED with lock_timeout = INGEST_TX_TIMEOUT_MS, and leaves nothing on the pooled connection", async () => {
    const parsed = parseEvent(
      buildKeyEvent({ type: "key.created", tenantId: "district-settings", keyId: "key_s", sequence: 1 }),
    );
    if (!parsed.ok) throw new Error(parsed.error);
    const event = parsed.parsed.event as KeyEvent;
    const timeout = env().INGEST_TX_TIMEOUT_MS;
    const statement = ingestStatement(
      {
        event,
        payloadJson: "{}",
        receivedAt: new Date(),
        receipt: { webhookId: event.id, bodyBytes: 2, handlerMicros: 1, source: "provider" },
      },
      timeout,
    );
    const inside = await prisma.$transaction(async (tx) => {
      await tx.$queryRaw(statement);
      return tx.$queryRaw<{ lock_timeout: string; isolation: string; idle: string }[]>`
        SELECT current_setting('lock_timeout') AS lock_timeout, current_setting('transaction_isolation') AS isolation,
               current_setting('idle_in_transaction_session_timeout') AS idle`;
    });
    expect(inside[0]).toEqual({ lock_timeout: `${timeout / 1000}s`, isolation: "read committed", idle: "1min" });

    // The next transactions, on whatever server connections the pooler hands out, are back to defaults.
    const after = await Promise.all(
      Array.from({ length: 4 }, () =>
        prisma.$transaction((tx) => tx.$queryRaw<{ lock_timeout: string }[]>`SHOW lock_timeout`),
      ),
    );
    expect(after.map((rows) => rows[0]!.lock_timeout)).toEqual(["0", "0", "0", "0"]);

    // A database or role whose default isolation is not READ COMMITTED gets a refusal, not a
    // silently different ingest.
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SET TRANSACTION ISOLATION LEVEL SERIALIZABLE`;
        await tx.$queryRaw(statement);
      }),
    ).rejects.toThrow(/keyhook_ingest must run at READ COMMITTED, not serializable/);
    expect(await prisma.processedEvent.count()).toBe(1);
  });
});

describe("the purge through the pooler", () => {
  const now = new Date("2026-12-01T03:00:00.000Z");
  const expired = () => insertClaims({ count: 30, receivedAt: new Date(now.getTime() - 20 * DAY_MS) });

  it("runs twice in a row (both run) and leaves no advisory lock behind", async () => {
    await expired();
    const first = await runPurge({ trigger: "manual", now, batchSize: 7, pauseMs: 0 });
    expect(first).toMatchObject({ status: "ran", claimsDeleted: 30 });
    expect(await advisoryLocks()).toEqual([]);
    await expired();
    const second = await runPurge({ trigger: "manual", now, batchSize: 7, pauseMs: 0 });
    expect(second).toMatchObject({ status: "ran", claimsDeleted: 30 });
    expect(await advisoryLocks()).toEqual([]);
  });

  it("two at once: one runs, the other records skipped_locked", async () => {
    await insertClaims({ count: 200, receivedAt: new Date(now.getTime() - 20 * DAY_MS) });
    const runs = await Promise.all([
      runPurge({ trigger: "schedule", now, batchSize: 10, pauseMs: 5 }),
      runPurge({ trigger: "schedule", now, batchSize: 10, pauseMs: 5 }),
    ]);
    expect(runs.map((r) => r.status).sort()).toEqual(["ran", "skipped_locked"]);
    expect(runs.reduce((sum, r) => sum + r.claimsDeleted, 0)).toBe(200);
    expect(await advisoryLocks()).toEqual([]);
  });

  it("steps aside while another run's lease is valid, and takes over an expired one", async () => {
    await expired();
    const [alive] = await prisma.$queryRaw<{ id: bigint }[]>`
      INSERT INTO purge_runs (trigger, status, started_at, lease_until) VALUES ('schedule', 'running', now(), now() + interval '1 minute') RETURNING id`;
    expect(await runPurge({ trigger: "manual", now, pauseMs: 0 })).toMatchObject({
      status: "skipped_locked",
      claimsDeleted: 0,
    });

    await prisma.$executeRaw`UPDATE purge_runs SET lease_until = now() - interval '1 second' WHERE id = ${alive!.id}`;
    expect(await runPurge({ trigger: "manual", now, pauseMs: 0 })).toMatchObject({ status: "ran", claimsDeleted: 30 });
    const abandoned = await prisma.purgeRun.findUniqueOrThrow({ where: { id: alive!.id } });
    expect(abandoned).toMatchObject({ status: "failed", error: expect.stringMatching(/^abandoned/) });
  });
});
