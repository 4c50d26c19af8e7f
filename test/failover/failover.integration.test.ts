// Keyhook on a real failover: Patroni managing two PostgreSQL 15 nodes with synchronous, strict
// replication and HAProxy routing to the primary (test/support/patroni-cluster.ts, the topology of
// docs/failover.md). The app's DATABASE_URL is HAProxy's primary port, as in a deployment.
// Without the Debian packages (patroni, etcd-server, haproxy) the file is skipped, except under
// CI=true, where it fails.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { disconnectDb, prisma } from "@/lib/core/db/client";
import { resetEnvForTests } from "@/lib/core/config/env";
import { handleKeyWebhook } from "@/http/webhook/receive-key-webhook";
import { checkFailoverDurability } from "@/lib/operations/readiness/step-failover-durability";
import { runPurge } from "@/lib/operations/retention/run-purge";
import type { PurgeRunSummary } from "@/lib/operations/retention/purge-runs";
import { foldRollups } from "@/lib/operations/rollups/fold-rollups";
import { COUNTED_ROW } from "@/lib/operations/rollups/rollup-sources";
import { MIGRATION_LOCK_KEY } from "@/tooling/migrations/migration-lock";
import { applyMigrations } from "@/tooling/migrations/wasm-engine";
import { waitUntil } from "../support/child-process";
import { withPgClient } from "../support/pg-client";
import { findFailoverTools, startPatroniCluster, type PatroniCluster } from "../support/patroni-cluster";
import { readinessContext } from "../support/readiness-context";
import { keyStatuses, ledgerCount, receiptsFor } from "../support/state";
import { deliver, keyEvent, signedRequest } from "../support/webhooks";
import { startWorker, type WorkerProcess } from "../support/worker";
import { insertClaims, DAY_MS } from "../support/ledger-rows";

const tools = findFailoverTools();
const missing = tools.ok ? null : tools.reason;
if (missing && process.env.CI === "true") throw new Error(`the failover tests cannot run under CI: ${missing}`);

const BASE_PORT = Number(process.env.TEST_FAILOVER_BASE_PORT ?? 4800);
let cluster: PatroniCluster;
const url = (database = "keyhook") => cluster.primaryUrl(database);

describe.skipIf(missing !== null)("on a Patroni cluster with a synchronous standby", () => {
  beforeAll(async () => {
    cluster = await startPatroniCluster({ basePort: BASE_PORT, synchronous: true });
    await withPgClient(url("postgres"), (client) => client.query("CREATE DATABASE keyhook"));
    await applyMigrations({ databaseUrl: url() });
    process.env.DATABASE_URL = url();
    process.env.INGEST_TX_TIMEOUT_MS = "1000";
    resetEnvForTests();
    await disconnectDb();
  }, 180_000);
  afterAll(async () => {
    await disconnectDb();
    await cluster?.stop();
  });

  it("while no standby confirms commits, ingest answers 503 with Retry-After (never 200); the retry afterwards finds the one commit", async () => {
    const tenant = "district-stalled";
    const created = keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_a", sequence: 1 });
    expect((await deliver(created)).status).toBe(200);
    const revoke = keyEvent({ type: "key.revoked", tenantId: tenant, keyId: "key_a", sequence: 2 });
    cluster.freezeReplication((await cluster.leader())!);
    try {
      // The commit waits for a confirmation that does not come: the answer must not.
      const response = await handleKeyWebhook(signedRequest(revoke));
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
    } finally {
      cluster.thawReplication();
    }
    const retry = await deliver(revoke);
    expect(retry.status).toBe(200);
    expect(await ledgerCount({ eventId: String(revoke.id) })).toBe(1);
    expect(await keyStatuses(tenant)).toEqual({ key_a: "revoked" });
  });

  describe("a delivery whose COMMIT outlives its deadline (answered 503)", () => {
    let lines: string[] = [];
    const log = () => lines.join("");
    beforeAll(() => {
      process.env.LOG_LEVEL = "info";
      resetEnvForTests();
      for (const stream of [process.stdout, process.stderr])
        vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => {
          lines.push(String(chunk));
          return true;
        });
    });
    afterAll(() => {
      vi.restoreAllMocks();
      delete process.env.LOG_LEVEL;
      resetEnvForTests();
    });

    it("once the late commit lands, its receipt says 503 (the change did apply): one receipt, and the log says only what happened", async () => {
      lines = [];
      const tenant = "district-late";
      expect(
        (await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_late_a", sequence: 1 }))).status,
      ).toBe(200);
      const revoke = keyEvent({ type: "key.revoked", tenantId: tenant, keyId: "key_late_a", sequence: 2 });
      cluster.freezeReplication((await cluster.leader())!);
      try {
        expect((await handleKeyWebhook(signedRequest(revoke))).status).toBe(503);
      } finally {
        cluster.thawReplication();
      }
      // The commit lands with the thaw; the answer is written onto its receipt right after.
      await waitUntil(async () => (await receiptsFor(String(revoke.id))).some((r) => r.status === 503), 50);
      const [receipt, ...others] = await receiptsFor(String(revoke.id));
      expect(receipt).toMatchObject({ status: 503, outcome: "applied", tenantId: tenant });
      expect(others).toEqual([]);
      await waitUntil(() => log().includes("receipt amended"), 50);
      expect(receipt!.error).toMatch(
        /^answered 503: the commit was not confirmed within \d+ ms; it committed afterwards$/,
      );
      expect(await keyStatuses(tenant)).toEqual({ key_late_a: "revoked" });
      // The sender retries: a duplicate, with a receipt of its own.
      expect((await deliver(revoke)).body).toMatchObject({ outcome: "duplicate" });
      expect((await receiptsFor(String(revoke.id))).map((r) => [r.status, r.outcome])).toEqual([
        [503, "applied"],
        [200, "duplicate"],
      ]);
      expect(log()).toMatch(/ingest not confirmed within \d+ ms; it may still commit/);
      expect(log()).toContain("receipt amended: the commit landed after the 503 answer");
      expect(log()).not.toContain("could not store receipt");
    });

    it("when the primary is lost before it hears the standby that holds the commit, the promoted server keeps the 200 receipt (docs/design.md says when); the retry is a duplicate", async () => {
      lines = [];
      const tenant = "district-late-lost";
      expect(
        (await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_lost_a", sequence: 1 }))).status,
      ).toBe(200);
      const revoke = keyEvent({ type: "key.revoked", tenantId: tenant, keyId: "key_lost_a", sequence: 2 });
      const leader = (await cluster.leader())!;
      const standby = leader === 0 ? 1 : 0;
      cluster.holdConfirmations(leader);
      expect((await handleKeyWebhook(signedRequest(revoke))).status).toBe(503);
      // The standby has replayed the commit; the primary still waits to hear so, and dies waiting.
      await waitUntil(
        () =>
          withPgClient(cluster.nodeUrl(standby, "keyhook"), async (client) => {
            const { rows } = await client.query("SELECT 1 FROM receipts WHERE webhook_id = $1", [String(revoke.id)]);
            return rows.length > 0;
          }),
        50,
      );
      cluster.crashPostgres(leader);
      await cluster.dropReplication(leader);
      await cluster.waitForHealthy({ not: leader, timeoutMs: 150_000 });
      await cluster.waitForWritable("keyhook");

      expect((await receiptsFor(String(revoke.id))).map((r) => [r.status, r.outcome])).toEqual([[200, "applied"]]);
      expect((await deliver(revoke)).body).toMatchObject({ outcome: "duplicate" });
      expect(log()).toMatch(/ingest not confirmed within \d+ ms; it may still commit/);
      expect(log()).not.toContain("could not store receipt");
    }, 240_000);
  });

  describe("readiness: an acknowledged change survives a failover", () => {
    it("passes with a synchronous standby confirming, and names it", async () => {
      const result = await checkFailoverDurability(readinessContext(prisma));
      expect([result.passed, result.warning ?? false, result.summary]).toEqual([
        true,
        false,
        expect.stringMatching(/commits wait for node\d \(sync\).*synchronous_commit = on/),
      ]);
    });

    it("fails, with the fix, when the ingest transaction does not wait for the standby", async () => {
      await prisma.$executeRawUnsafe("ALTER FUNCTION keyhook_ingest SET synchronous_commit = local");
      try {
        const result = await checkFailoverDurability(readinessContext(prisma));
        expect(result.passed).toBe(false);
        expect(result.summary).toMatch(/synchronous_commit = local/);
        expect(result.fix).toMatch(/ALTER FUNCTION keyhook_ingest RESET synchronous_commit/);
      } finally {
        await prisma.$executeRawUnsafe("ALTER FUNCTION keyhook_ingest RESET synchronous_commit");
      }
    });

    it("fails, with the fix, when the standby replicates asynchronously", async () => {
      await cluster.setSynchronous(false);
      try {
        const result = await checkFailoverDurability(readinessContext(prisma));
        expect(result.passed).toBe(false);
        expect(result.summary).toMatch(/replicates asynchronously/);
        expect(result.fix).toMatch(/synchronous_mode: true/);
      } finally {
        await cluster.setSynchronous(true);
      }
    });
  });

  describe("across a crash of the primary", () => {
    const acknowledged: string[] = [];
    let worker: WorkerProcess;
    let migrationWaiter: Promise<string[]>;
    let cutPurge: Promise<PurgeRunSummary>;

    beforeAll(async () => {
      // Work in flight when the primary dies: acknowledged deliveries, a worker listening, the
      // rollup fold half-way (a pending watermark), a purge run holding its lease, and a replica
      // waiting for another's migration lock.
      for (let sequence = 1; sequence <= 6; sequence++) {
        const event = keyEvent({
          type: sequence === 1 ? "key.created" : "key.rotated",
          tenantId: "district-crash",
          keyId: `key_${sequence}`,
          previousKeyId: sequence === 1 ? undefined : `key_${sequence - 1}`,
          sequence,
        });
        expect((await deliver(event)).status).toBe(200);
        acknowledged.push(String(event.id));
      }
      await foldRollups();
      worker = startWorker({ DATABASE_URL: url(), OUTBOX_POLL_INTERVAL_MS: "60000", ROLLUP_INTERVAL_MS: "200" });
      await waitUntil(() => worker.output.join("").includes("worker started"), 50);
      // A worker purges its day's slot when it starts: that run holds the purge's lease until it ends.
      await waitUntil(
        async () =>
          (await prisma.purgeRun.count({ where: { scheduledFor: { not: null }, status: { not: "running" } } })) > 0,
        50,
      );

      await insertClaims({ count: 40, receivedAt: new Date(Date.now() - 60 * DAY_MS) });
      let firstBatch!: () => void;
      const midRun = new Promise<void>((resolve) => (firstBatch = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      cutPurge = runPurge({
        trigger: "cli",
        batchSize: 5,
        pauseMs: 0,
        onBatch: async () => {
          firstBatch();
          await released;
        },
      });
      cutPurge.catch(() => {}); // awaited by its test
      await midRun;

      const holder = new pg.Client({ connectionString: url() });
      holder.on("error", () => {});
      await holder.connect();
      await holder.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      migrationWaiter = applyMigrations({ databaseUrl: url(), lockTimeoutMs: 120_000 });
      migrationWaiter.catch(() => {}); // awaited by its test
      await waitUntil(async () => {
        const { rows } = await holder.query(
          "SELECT 1 FROM pg_stat_activity WHERE application_name = 'keyhook-migrate' AND pid <> pg_backend_pid()",
        );
        return rows.length > 0;
      }, 50);

      const leader = (await cluster.leader())!;
      cluster.crashPostgres(leader);
      // The purge goes on at once: its next batch and the record of its end meet the outage.
      release();
      await cluster.waitForHealthy({ not: leader });
      await cluster.waitForWritable("keyhook");
      await holder.end().catch(() => {});
    }, 180_000);
    afterAll(async () => {
      await worker?.kill("SIGKILL");
    });

    it("every delivery acknowledged before the crash is on the new primary, once", async () => {
      const rows = await prisma.processedEvent.findMany({ where: { eventId: { in: acknowledged } } });
      expect(rows.map((r) => r.eventId).sort()).toEqual([...acknowledged].sort());
      expect(await keyStatuses("district-crash")).toMatchObject({ key_5: "rotated", key_6: "active" });
    });

    it("a replica waiting for the migration lock takes it on the new primary and finishes; the next start does not wait", async () => {
      await expect(migrationWaiter).resolves.toEqual([]);
      await expect(applyMigrations({ databaseUrl: url(), lockTimeoutMs: 1_000 })).resolves.toEqual([]);
    });

    it("the purge run cut off by the failover records its failure and frees its lease; the next run purges the rest", async () => {
      const cut = await cutPurge;
      expect(cut.status).toBe("failed");
      const next = await runPurge({ trigger: "cli" });
      expect(next.status).toBe("ran");
      expect(await ledgerCount({ tenantId: "district-fill" })).toBe(0);
      expect(await prisma.purgeRun.count({ where: { status: "running" } })).toBe(0);
    });

    it("the worker keeps running: LISTEN and its jobs resume on the new primary", { timeout: 120_000 }, async () => {
      // graphile-worker reconnects its LISTEN session with its own backoff (at most a minute
      // apart); the queue polls meanwhile, but not in this test (a minute too): a job that runs
      // now was woken by NOTIFY on the new primary.
      await waitUntil(async () => {
        const [row] = await prisma.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query ILIKE 'listen %' AND datname = current_database()`,
        );
        return row!.n > 0;
      }, 250);
      await prisma.$executeRawUnsafe(
        `SELECT graphile_worker.add_job('outbox.drain', '{}'::json, job_key => 'after-failover')`,
      );
      await waitUntil(async () => {
        const [row] = await prisma.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = 'after-failover'`,
        );
        return row!.n === 0;
      }, 50);
      expect(worker.child.exitCode).toBeNull();
    });

    it("the rollup fold carries on: what it folded equals the rows at or below its watermark", async () => {
      await foldRollups();
      await foldRollups();
      const [row] = await prisma.$queryRawUnsafe<{ folded: bigint; counted: bigint }[]>(
        `SELECT (SELECT coalesce(sum(rows), 0) FROM claim_hourly_counts)::bigint AS folded,
                (SELECT count(*) FROM processed_events
                  WHERE ${COUNTED_ROW}
                    AND id <= (SELECT folded_id FROM rollup_watermarks WHERE source = 'processed_events'))::bigint AS counted`,
      );
      expect(row!.folded).toBe(row!.counted);
      expect(row!.counted).toBeGreaterThan(0n);
    });
  });
});
