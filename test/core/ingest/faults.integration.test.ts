import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { signDelivery } from "@/lib/operations/provider/signed-delivery";
import { startIngestServer, waitUntil, type RunningServer } from "../../support/child-process";
import { keyStatuses, ledgerCount, resetDatabase } from "../../support/state";
import { startTcpProxy, type TcpProxy } from "../../support/tcp-proxy";
import { TEST_SECRET, deliver, keyEvent } from "../../support/webhooks";

const databaseUrl = () => process.env.DATABASE_URL!;
let servers: RunningServer[] = [];
let proxies: TcpProxy[] = [];

beforeEach(resetDatabase);
afterEach(async () => {
  await Promise.all(servers.map((s) => s.kill()));
  await Promise.all(proxies.map((p) => p.close()));
  servers = [];
  proxies = [];
});

async function post(port: number, event: Record<string, unknown>) {
  const body = JSON.stringify(event);
  const signed = signDelivery({ body, webhookId: String(event.id), secrets: [TEST_SECRET] });
  const response = await fetch(`http://127.0.0.1:${port}/api/webhooks/keys`, {
    method: "POST",
    headers: signed.headers,
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("faults", () => {
  it("a process SIGKILLed between the claim and the commit leaves nothing claimed or changed; the redelivery applies once", async () => {
    const tenant = "district-kill";
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_a", sequence: 1 }));
    const rotation = keyEvent({
      type: "key.rotated",
      tenantId: tenant,
      keyId: "key_b",
      previousKeyId: "key_a",
      sequence: 2,
    });

    // Hold the tenant's row lock so the server's transaction claims the event, then blocks.
    const blocker = new pg.Client({ connectionString: databaseUrl() });
    // A separate connection to watch: pg_stat_activity is snapshotted once per transaction.
    const observer = new pg.Client({ connectionString: databaseUrl() });
    await Promise.all([blocker.connect(), observer.connect()]);
    try {
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE", [tenant]);

      const server = await startIngestServer({ DATABASE_URL: databaseUrl() });
      servers.push(server);
      const inFlight = post(server.port, rotation).catch((error: unknown) => error);

      let waitingPid = 0;
      await waitUntil(async () => {
        const { rows } = await observer.query<{ pid: number }>(
          `SELECT a.pid FROM pg_stat_activity a
            WHERE a.datname = current_database() AND a.wait_event_type = 'Lock' AND a.query LIKE '%keyhook_ingest(%'`,
        );
        waitingPid = rows[0]?.pid ?? 0;
        return waitingPid !== 0;
      });
      // The claim row exists, uncommitted, inside the blocked transaction.
      const { rows: claimLocks } = await observer.query(
        `SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE l.pid = $1 AND c.relname = 'processed_events' AND l.mode = 'RowExclusiveLock'`,
        [waitingPid],
      );
      expect(claimLocks.length).toBeGreaterThan(0);

      await server.kill("SIGKILL");
      expect(await inFlight).toBeInstanceOf(Error);
      await blocker.query("ROLLBACK");

      await waitUntil(async () => {
        const { rows } = await observer.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state <> 'idle'", [
          waitingPid,
        ]);
        return rows.length === 0;
      });
    } finally {
      await Promise.all([blocker.end(), observer.end()]);
    }

    expect(await ledgerCount({ eventId: String(rotation.id) })).toBe(0);
    expect(await keyStatuses(tenant)).toEqual({ key_a: "active" });

    const redelivery = await deliver(rotation);
    expect(redelivery.body.outcome).toBe("applied");
    expect((await deliver(rotation)).body.outcome).toBe("duplicate");
    expect(await keyStatuses(tenant)).toEqual({ key_a: "rotated", key_b: "active" });
    expect(await ledgerCount({ eventId: String(rotation.id) })).toBe(1);
  });

  it("database unreachable → 503 and a clear log line; once it is back the redelivery applies", async () => {
    const target = new URL(databaseUrl());
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
    proxies.push(proxy);
    const viaProxy = new URL(databaseUrl());
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(proxy.port);
    const server = await startIngestServer({ DATABASE_URL: viaProxy.toString() });
    servers.push(server);

    const first = keyEvent({ type: "key.created", tenantId: "district-down", keyId: "key_1", sequence: 1 });
    expect((await post(server.port, first)).body.outcome).toBe("applied");

    await proxy.down();
    const second = keyEvent({
      type: "key.rotated",
      tenantId: "district-down",
      keyId: "key_2",
      previousKeyId: "key_1",
      sequence: 2,
    });
    const failed = await post(server.port, second);
    expect(failed.status).toBe(503);
    expect(failed.body.error).toMatch(/retry/);
    await waitUntil(() => server.output.join("\n").includes("ingest failed: not committed"));
    const line = server.output
      .join("\n")
      .split("\n")
      .find((l) => l.includes("ingest failed: not committed"))!;
    expect(JSON.parse(line)).toMatchObject({ level: "error", event_id: second.id, tenant_id: "district-down" });

    await proxy.up();
    expect((await post(server.port, second)).body.outcome).toBe("applied");
    expect(await keyStatuses("district-down")).toEqual({ key_1: "rotated", key_2: "active" });
    expect(await ledgerCount({ eventId: String(second.id) })).toBe(1);
    expect(await prisma.receipt.count({ where: { eventId: String(second.id), status: 200 } })).toBe(1);
  });

  it("a transaction stuck behind a lock past the ingest timeout is rolled back and answered 503, then the redelivery applies", async () => {
    const tenant = "district-slow";
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_a", sequence: 1 }));
    const revoke = keyEvent({ type: "key.revoked", tenantId: tenant, keyId: "key_a", sequence: 2 });
    const server = await startIngestServer({ DATABASE_URL: databaseUrl(), INGEST_TX_TIMEOUT_MS: "300" });
    servers.push(server);

    const blocker = new pg.Client({ connectionString: databaseUrl() });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE", [tenant]);
      const answer = await post(server.port, revoke);
      expect(answer.status).toBe(503);
      expect(await ledgerCount({ eventId: String(revoke.id) })).toBe(0);
    } finally {
      await blocker.query("ROLLBACK");
      await blocker.end();
    }
    expect(await keyStatuses(tenant)).toEqual({ key_a: "active" });
    expect((await post(server.port, revoke)).body.outcome).toBe("applied");
    expect(await keyStatuses(tenant)).toEqual({ key_a: "revoked" });
  });
});
