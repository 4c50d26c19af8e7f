// The outbox worker against the real simulator process: every HTTP attempt is recorded, the
// provider's Retry-After is honoured (a controllable clock, no waiting), and a crash at any point
// after the local commit still ends with exactly one effective provider call.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { enqueueOutbox } from "@/lib/core/outbox/enqueue-outbox";
import { processOutbox } from "@/lib/operations/outbox/process-outbox";
import { createProviderClient } from "@/lib/operations/provider/client";
import { waitUntil } from "../../support/child-process";
import { resetDatabase } from "../../support/state";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";
import { startWorker, type WorkerProcess } from "../../support/worker";

type ApiCalls = { calls: { path: string; status: number; replayed: boolean }[] };
type Truth = { tenants: { id: string; sequence: number; keys: { id: string; status: string }[] }[] };

let sim: SimulatorProcess;
let workers: WorkerProcess[] = [];
let servers: Server[] = [];
const outboxClient = () => createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 });

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.dispose();
});
beforeEach(resetDatabase);
afterEach(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  workers = [];
  servers = [];
  await sim.setFaults({ apiRateLimitNext: 0, apiServerErrorNext: 0 });
});

/** A key live at the provider and locally, then revoked locally: key row + outbox row in ONE transaction. */
async function revokedLocally(tenantId: string): Promise<{ keyId: string; idempotencyKey: string; outboxId: bigint }> {
  const api = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
  const issued = await api.issueKey({ tenantId, scopes: ["rosters:read"], idempotencyKey: `issue-${tenantId}` });
  const keyId = issued.key.id;
  const idempotencyKey = `revoke:${keyId}`;
  const outboxId = await prisma.$transaction(async (tx) => {
    await tx.tenant.create({ data: { id: tenantId } });
    await tx.apiKey.create({
      data: { id: keyId, tenantId, status: "revoked", revokedAt: new Date(), revokeRequestedAt: new Date() },
    });
    const staged = await enqueueOutbox(
      { kind: "key.revoke", tenantId, idempotencyKey, payload: { tenantId, keyId } },
      tx,
    );
    return staged.id;
  });
  return { keyId, idempotencyKey, outboxId };
}

async function providerKeyStatus(tenantId: string, keyId: string): Promise<string | undefined> {
  const truth = await sim.control<Truth>("GET", `/_sim/truth?tenant=${tenantId}`);
  return truth.tenants[0]?.keys.find((k) => k.id === keyId)?.status;
}

const apiCalls = async (idempotencyKey: string) =>
  (await sim.control<ApiCalls>("GET", `/_sim/api-calls?idempotency_key=${encodeURIComponent(idempotencyKey)}`)).calls;
const attemptsOf = (outboxId: bigint) => prisma.outboxAttempt.findMany({ where: { outboxId }, orderBy: { id: "asc" } });

describe("outbox worker", () => {
  it("provider answers 429 then 200: one successful call, both attempts recorded, Retry-After honoured", async () => {
    const { keyId, idempotencyKey, outboxId } = await revokedLocally("district-ob-429");
    await sim.setFaults({ apiRateLimitNext: 1, apiRetryAfterSeconds: 30 });
    const t0 = Date.now() + 1_000;
    const at = (ms: number) => () => new Date(t0 + ms);
    const options = { client: outboxClient(), baseBackoffMs: 1_000 };

    expect(await processOutbox({ ...options, now: at(0) })).toMatchObject({ claimed: 1, retrying: 1 });
    const waiting = await prisma.outboxMessage.findUniqueOrThrow({ where: { id: outboxId } });
    expect(waiting.status).toBe("pending");
    expect(waiting.nextAttemptAt.getTime()).toBe(t0 + 30_000); // Retry-After (30 s), not the 1 s backoff
    expect(await providerKeyStatus("district-ob-429", keyId)).toBe("active");

    expect(await processOutbox({ ...options, now: at(29_999) })).toMatchObject({ claimed: 0 });
    expect(await processOutbox({ ...options, now: at(30_000) })).toMatchObject({ claimed: 1, sent: 1 });

    const sent = await prisma.outboxMessage.findUniqueOrThrow({ where: { id: outboxId } });
    expect(sent).toMatchObject({ status: "sent", attempts: 2, lastError: null });
    expect((await attemptsOf(outboxId)).map((a) => [a.status, a.error === null])).toEqual([
      [429, false],
      [200, true],
    ]);
    expect((await apiCalls(idempotencyKey)).map((c) => c.status)).toEqual([429, 200]);
    expect(await providerKeyStatus("district-ob-429", keyId)).toBe("revoked");
    expect(await processOutbox({ ...options, now: at(60_000) })).toMatchObject({ claimed: 0 });
  });

  it("a refusal retrying cannot fix fails the row at once; a server error is retried with backoff", async () => {
    await prisma.tenant.create({ data: { id: "district-ob-refuse" } });
    const { id } = await enqueueOutbox({
      kind: "key.revoke",
      tenantId: "district-ob-refuse",
      idempotencyKey: "revoke:key_unknown",
      payload: { tenantId: "district-ob-refuse", keyId: "key_unknown" },
    });
    await sim.setFaults({ apiServerErrorNext: 1 });
    const t0 = Date.now() + 1_000;
    expect(
      await processOutbox({ client: outboxClient(), now: () => new Date(t0), baseBackoffMs: 2_000 }),
    ).toMatchObject({ retrying: 1 });
    expect((await prisma.outboxMessage.findUniqueOrThrow({ where: { id } })).nextAttemptAt.getTime()).toBe(t0 + 2_000);
    expect(await processOutbox({ client: outboxClient(), now: () => new Date(t0 + 2_000) })).toMatchObject({
      failed: 1,
    });
    const row = await prisma.outboxMessage.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("failed");
    expect(row.lastError).toContain("404");
    expect((await attemptsOf(id)).map((a) => a.status)).toEqual([503, 404]);
  });

  it("two workers polling at once never send the same row twice", async () => {
    const rows = await Promise.all(["a", "b", "c"].map((s) => revokedLocally(`district-ob-race-${s}`)));
    const now = () => new Date(Date.now() + 1_000);
    const results = await Promise.all([
      processOutbox({ client: outboxClient(), now, batchSize: 3 }),
      processOutbox({ client: outboxClient(), now, batchSize: 3 }),
    ]);
    expect(results[0]!.claimed + results[1]!.claimed).toBe(3);
    for (const row of rows) {
      expect(await apiCalls(row.idempotencyKey)).toHaveLength(1);
      expect(await attemptsOf(row.outboxId)).toHaveLength(1);
    }
  });

  it("rows of a batch that outlasted its lease are left for a later claim, never sent twice", async () => {
    const first = await revokedLocally("district-ob-lease-a");
    const second = await revokedLocally("district-ob-lease-b");
    let t = Date.now() + 1_000;
    const clock = () => new Date(t);
    const client = outboxClient();
    // The first send is slow: the clock passes the lease while it is in flight.
    const slow = {
      ...client,
      revokeKey: async (input: Parameters<typeof client.revokeKey>[0]) => {
        const answer = await client.revokeKey(input);
        t += 10_000;
        return answer;
      },
    };
    expect(await processOutbox({ client: slow, now: clock, leaseMs: 5_000, batchSize: 2 })).toMatchObject({
      claimed: 2,
      sent: 1,
      retrying: 1,
    });
    expect(await apiCalls(second.idempotencyKey)).toHaveLength(0);
    expect((await attemptsOf(second.outboxId))[0]!.error).toMatch(/^not sent: the batch ran past its lease/);

    expect(await processOutbox({ client, now: clock, leaseMs: 5_000 })).toMatchObject({ claimed: 1, sent: 1 });
    expect(await apiCalls(first.idempotencyKey)).toHaveLength(1);
    expect(await apiCalls(second.idempotencyKey)).toHaveLength(1);
  });

  it("a crash after the commit but before the send: the restarted worker sends it exactly once", async () => {
    // The local change committed with its outbox row; the process that did it died before any send.
    const { keyId, idempotencyKey, outboxId } = await revokedLocally("district-ob-crash");
    const env = {
      DATABASE_URL: process.env.DATABASE_URL!,
      PROVIDER_URL: sim.url,
      PROVIDER_API_KEY: DEV_PROVIDER_API_KEY,
    };

    const worker = startWorker(env);
    workers.push(worker);
    await waitUntil(
      async () => (await prisma.outboxMessage.findUniqueOrThrow({ where: { id: outboxId } })).status === "sent",
    );
    await worker.kill("SIGKILL");
    const again = startWorker(env);
    workers.push(again);
    // The restarted worker is polling (it logs each start); nothing is due, so nothing is sent.
    await waitUntil(() => again.output.join("").includes("worker started"));
    await processOutbox({ client: outboxClient(), now: () => new Date(Date.now() + 3_600_000) });

    expect(await apiCalls(idempotencyKey)).toHaveLength(1);
    expect((await attemptsOf(outboxId)).map((a) => a.status)).toEqual([200]);
    expect(await providerKeyStatus("district-ob-crash", keyId)).toBe("revoked");
  });

  it("a worker killed mid-send after the provider acted: the retry reuses the key and the provider acts once", async () => {
    const { keyId, idempotencyKey, outboxId } = await revokedLocally("district-ob-midsend");
    const eventsBefore = (await sim.stats()).events;

    // A proxy that forwards the call to the provider and then never answers the worker.
    const forwarded: number[] = [];
    const blackHole = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const headers = Object.fromEntries(
          ["authorization", "content-type", "idempotency-key"].map((h) => [h, String(req.headers[h] ?? "")]),
        );
        const answer = await fetch(sim.url + req.url, { method: req.method, headers, body: Buffer.concat(chunks) });
        forwarded.push(answer.status);
        res.on("close", () => undefined); // hold the response open: the answer is "lost"
      });
    });
    servers.push(blackHole);
    await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
    const holeUrl = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`;
    const env = {
      DATABASE_URL: process.env.DATABASE_URL!,
      PROVIDER_API_KEY: DEV_PROVIDER_API_KEY,
      OUTBOX_LEASE_MS: "2000",
    };

    const first = startWorker({ ...env, PROVIDER_URL: holeUrl, PROVIDER_TIMEOUT_MS: "60000" });
    workers.push(first);
    await waitUntil(() => forwarded.length === 1);
    expect(forwarded).toEqual([200]);
    expect(await providerKeyStatus("district-ob-midsend", keyId)).toBe("revoked");
    await first.kill("SIGKILL");
    const orphan = await attemptsOf(outboxId);
    expect(orphan.map((a) => [a.status, a.error])).toEqual([[null, "in flight"]]);

    const second = startWorker({ ...env, PROVIDER_URL: sim.url });
    workers.push(second);
    await waitUntil(
      async () => (await prisma.outboxMessage.findUniqueOrThrow({ where: { id: outboxId } })).status === "sent",
    );

    const calls = await apiCalls(idempotencyKey);
    expect(calls.map((c) => [c.status, c.replayed])).toEqual([
      [200, false],
      [200, true],
    ]);
    expect((await sim.stats()).events).toBe(eventsBefore + 1); // one key.revoked event, not two
    const attempts = await attemptsOf(outboxId);
    expect(attempts.map((a) => a.status)).toEqual([null, 200]);
    expect(attempts[0]!.error).toMatch(/^abandoned/);
    expect((await prisma.outboxMessage.findUniqueOrThrow({ where: { id: outboxId } })).attempts).toBe(2);
  });
});
