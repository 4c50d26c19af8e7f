// Webhook registration against the real simulator process: one hook per idempotency key, even
// when the answer is lost, the call is rate limited, or our settings write never happened.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { createProviderClient } from "@/lib/operations/provider/client";
import {
  getRegisteredHookId,
  ensureWebhookRegistered,
  HOOK_ID_SETTING,
} from "@/lib/operations/provider/webhook-registration";
import { resetDatabase } from "../../support/state";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";

let sim: SimulatorProcess;
const client = () => createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, sleep: async () => {} });
type ApiCalls = { calls: { path: string; status: number; replayed: boolean; idempotencyKey: string | null }[] };

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.dispose();
});
beforeEach(resetDatabase);

describe("webhook registration", () => {
  it("a repeated registration with the same idempotency key yields one hook", async () => {
    const before = (await sim.stats()).hooks;
    const first = await client().registerWebhook({ url: "http://127.0.0.1:1/a", idempotencyKey: "reg-same" });
    const second = await client().registerWebhook({ url: "http://127.0.0.1:1/a", idempotencyKey: "reg-same" });
    expect(second.hookId).toBe(first.hookId);
    expect((await sim.stats()).hooks).toBe(before + 1);
    const { calls } = await sim.control<ApiCalls>("GET", "/_sim/api-calls?idempotency_key=reg-same");
    expect(calls.map((c) => [c.status, c.replayed])).toEqual([
      [201, false],
      [201, true],
    ]);
  });

  it("a registration rate limited first is retried and still makes one hook", async () => {
    const before = (await sim.stats()).hooks;
    await sim.setFaults({ apiRateLimitNext: 2, apiRetryAfterSeconds: 1 });
    const waits: number[] = [];
    const retrying = createProviderClient({
      baseUrl: sim.url,
      apiKey: DEV_PROVIDER_API_KEY,
      sleep: async (ms) => void waits.push(ms),
    });
    const hook = await retrying.registerWebhook({ url: "http://127.0.0.1:1/b", idempotencyKey: "reg-429" });
    expect(hook.hookId).toMatch(/^hook_/);
    expect(waits).toEqual([1_000, 1_000]);
    expect((await sim.stats()).hooks).toBe(before + 1);
  });

  it("the same idempotency key with a different body is refused as a bad request", async () => {
    await client().registerWebhook({ url: "http://127.0.0.1:1/c", idempotencyKey: "reg-reuse" });
    await expect(
      client().registerWebhook({ url: "http://127.0.0.1:1/other", idempotencyKey: "reg-reuse" }),
    ).rejects.toMatchObject({
      code: "bad_request",
      status: 422,
    });
  });

  it("ensureWebhookRegistered stores the hook id, and re-registering after a lost settings write finds the same hook", async () => {
    const url = "http://127.0.0.1:1/api/webhooks/keys";
    expect(await getRegisteredHookId()).toBeNull();
    const first = await ensureWebhookRegistered({ url, client: client() });
    expect(first.created).toBe(true);
    expect(await getRegisteredHookId()).toBe(first.hookId);

    // Already registered: the provider is asked (one GET) and nothing is registered.
    const callsBefore = (await sim.control<ApiCalls>("GET", "/_sim/api-calls")).calls.length;
    expect(await ensureWebhookRegistered({ url, client: client() })).toEqual({
      hookId: first.hookId,
      created: false,
      replacedHookId: null,
    });
    const calls = (await sim.control<ApiCalls>("GET", "/_sim/api-calls")).calls.slice(callsBefore);
    expect(calls.map((c) => [c.path, c.status])).toEqual([[`/v1/account/webhooks/${first.hookId}`, 200]]);

    // As if we crashed after the provider answered but before our settings write committed.
    const hooksBefore = (await sim.stats()).hooks;
    await prisma.setting.deleteMany({ where: { key: HOOK_ID_SETTING } });
    const again = await ensureWebhookRegistered({ url, client: client() });
    expect(again.hookId).toBe(first.hookId);
    expect((await sim.stats()).hooks).toBe(hooksBefore);
  });
});

describe("a provider that lost our webhook", () => {
  it("is asked before anything is called registered: the lost hook is registered again, once, and then confirmed", async () => {
    const url = "http://127.0.0.1:1/api/webhooks/lost";
    const first = await ensureWebhookRegistered({ url, client: client() });
    // Our settings still name a hook, but the provider (its state reset) does not know it.
    const fresh = await startSimulator();
    try {
      const reset = createProviderClient({ baseUrl: fresh.url, apiKey: DEV_PROVIDER_API_KEY, sleep: async () => {} });
      expect(await reset.getWebhook({ hookId: first.hookId })).toBeNull();
      const again = await ensureWebhookRegistered({ url, client: reset });
      expect(again).toMatchObject({ created: true, replacedHookId: first.hookId });
      expect(await getRegisteredHookId()).toBe(again.hookId);
      expect(await reset.getWebhook({ hookId: again.hookId })).toMatchObject({ url });
      expect(await ensureWebhookRegistered({ url, client: reset })).toEqual({
        hookId: again.hookId,
        created: false,
        replacedHookId: null,
      });
      expect((await fresh.stats()).hooks).toBe(1);
    } finally {
      await fresh.dispose();
    }
  });
});

describe("simulator durability", () => {
  it("keeps hooks, keys, sequences, idempotent answers and delivery history across a SIGKILL", async () => {
    const own = await startSimulator({ env: { PROVIDER_SIM_TIME_SCALE: "100000" } });
    try {
      const api = createProviderClient({ baseUrl: own.url, apiKey: DEV_PROVIDER_API_KEY, sleep: async () => {} });
      // A hook nobody listens on: every delivery fails and is retried, so history accumulates.
      const hook = await api.registerWebhook({ url: "http://127.0.0.1:9/nothing", idempotencyKey: "reg-durable" });
      const issued = await api.issueKey({
        tenantId: "district-durable",
        scopes: ["rosters:read"],
        idempotencyKey: "issue-durable",
      });
      const rotated = await api.rotateKey({
        tenantId: "district-durable",
        keyId: issued.key.id,
        idempotencyKey: "rotate-durable",
      });
      const truthBefore = await own.control("GET", "/_sim/truth");
      const historyBefore = await api.listDeliveries({ hookId: hook.hookId, limit: 250 });
      expect(historyBefore.items.length).toBeGreaterThan(0);

      await own.kill("SIGKILL");
      const restarted = await startSimulator({ dataDir: own.dataDir, env: { PROVIDER_SIM_TIME_SCALE: "100000" } });
      try {
        const again = createProviderClient({
          baseUrl: restarted.url,
          apiKey: DEV_PROVIDER_API_KEY,
          sleep: async () => {},
        });
        expect(await restarted.control("GET", "/_sim/truth")).toEqual(truthBefore);
        const replay = await again.issueKey({
          tenantId: "district-durable",
          scopes: ["rosters:read"],
          idempotencyKey: "issue-durable",
        });
        expect(replay.key.id).toBe(issued.key.id);
        const history = await again.listDeliveries({ hookId: hook.hookId, limit: 250 });
        const ids = new Set(history.items.map((a) => a.id));
        for (const attempt of historyBefore.items) expect(ids.has(attempt.id)).toBe(true);
        // The next sequence continues after the restart.
        const revoked = await again.revokeKey({
          tenantId: "district-durable",
          keyId: rotated.key.id,
          idempotencyKey: "revoke-durable",
        });
        expect(revoked.key.status).toBe("revoked");
        const truth = await restarted.control<{ tenants: { id: string; sequence: number }[] }>(
          "GET",
          "/_sim/truth?tenant=district-durable",
        );
        expect(truth.tenants[0]!.sequence).toBe(3);
      } finally {
        await restarted.dispose();
      }
    } finally {
      await own.dispose();
    }
  });
});
