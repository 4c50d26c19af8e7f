// The simulator as a sender, against a scripted receiver on loopback: Standard Webhooks
// signatures (two during a secret rotation), the retry schedule under a time scale, failure
// after the last slot, manual redelivery, bulk redelivery of failed deliveries, per-tenant
// sequences and injected 429s on API calls.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_PROVIDER_API_KEY, DEV_WEBHOOK_SECRET } from "@/lib/core/config/env";
import { createProviderClient, type ProviderClient } from "@/lib/operations/provider/client";
import { DEFAULT_RETRY_SCHEDULE_MS } from "@/simulator/config";
import { waitUntil } from "../support/child-process";
import { startSimulator, type SimulatorProcess } from "../support/simulator";

const TIME_SCALE = 100_000; // the whole 42-hour schedule in about 1.5 s

type Delivery = { headers: IncomingHttpHeaders; body: string };
let sim: SimulatorProcess;
let receiver: Server;
let receiverUrl: string;
let client: ProviderClient;
const deliveries: Delivery[] = [];
/** Status the receiver answers, per path. */
const answers = new Map<string, number>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      deliveries.push({ headers: req.headers, body });
      // "/verifying" checks the signature as the app does: a wrong one is a 401.
      const refused = req.url === "/verifying" && !verifies(body, req.headers);
      res.writeHead(refused ? 401 : (answers.get(req.url!) ?? 200), { "content-type": "application/json" });
      res.end(JSON.stringify({ outcome: "applied" }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  sim = await startSimulator({ env: { PROVIDER_SIM_TIME_SCALE: String(TIME_SCALE) } });
  client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, sleep: async () => {} });
});
afterAll(async () => {
  await sim.dispose();
  await new Promise((resolve) => receiver.close(resolve));
});

function verifies(body: string, headers: IncomingHttpHeaders): boolean {
  try {
    new Webhook(DEV_WEBHOOK_SECRET).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

const deliveriesTo = (eventId: string) => deliveries.filter((d) => d.headers["webhook-id"] === eventId);

describe("provider simulator", () => {
  it("signs with Standard Webhooks, and with the old and the new secret during a rotation", async () => {
    const { hookId } = await client.registerWebhook({ url: `${receiverUrl}/signed`, idempotencyKey: "sim-signed" });
    const issued = await client.issueKey({
      tenantId: "district-sig",
      scopes: ["rosters:read"],
      idempotencyKey: "sim-sig-1",
    });
    await waitUntil(() => deliveriesTo(issued.eventId!).length === 1);
    const first = deliveriesTo(issued.eventId!)[0]!;
    expect(String(first.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(new Webhook(DEV_WEBHOOK_SECRET).verify(first.body, first.headers as Record<string, string>)).toMatchObject({
      id: issued.eventId,
      sequence: 1,
    });

    const newSecret = "whsec_bmV3LXNlY3JldC1mb3ItdGhlLXJvdGF0aW9uLXRlc3Q=";
    const rotation = await client.rotateWebhookSecret({
      hookId,
      secret: newSecret,
      overlapSeconds: 3600,
      idempotencyKey: "sim-rotate-secret",
    });
    expect(rotation.secret).toBe(newSecret);
    const rotated = await client.rotateKey({
      tenantId: "district-sig",
      keyId: issued.key.id,
      idempotencyKey: "sim-sig-2",
    });
    await waitUntil(() => deliveriesTo(rotated.eventId!).length === 1);
    const during = deliveriesTo(rotated.eventId!)[0]!;
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    // A receiver holding only the old secret, or only the new one, accepts it.
    for (const secret of [DEV_WEBHOOK_SECRET, newSecret]) {
      expect(new Webhook(secret).verify(during.body, during.headers as Record<string, string>)).toMatchObject({
        id: rotated.eventId,
        sequence: 2,
        previous_key_id: issued.key.id,
      });
    }
  });

  it("retries a failing receiver on the (scaled) schedule, then marks the delivery failed; redelivery works", async () => {
    answers.set("/failing", 503);
    const { hookId } = await client.registerWebhook({ url: `${receiverUrl}/failing`, idempotencyKey: "sim-failing" });
    const since = new Date(Date.now() - 1_000);
    const issued = await client.issueKey({ tenantId: "district-fail", scopes: ["a"], idempotencyKey: "sim-fail-1" });
    const eventId = issued.eventId!;
    const attemptsOf = async () =>
      (await client.listDeliveries({ hookId, eventId })).items.sort((a, b) => a.attempt - b.attempt);
    await waitUntil(async () => (await attemptsOf()).length === DEFAULT_RETRY_SCHEDULE_MS.length);

    const attempts = await attemptsOf();
    expect(attempts.map((a) => [a.attempt, a.trigger, a.statusCode, a.succeeded])).toEqual(
      DEFAULT_RETRY_SCHEDULE_MS.map((_, i) => [i + 1, "scheduled", 503, false]),
    );
    expect(attempts[0]!.error).toBe("receiver answered 503");
    expect(attempts[0]!.responseExcerpt).toContain("applied");
    // Each next retry is the schedule's next slot, compressed by the time scale.
    for (let i = 0; i < attempts.length - 1; i++) {
      expect(attempts[i]!.nextRetryAt!.getTime() - attempts[i]!.at.getTime()).toBeGreaterThanOrEqual(
        Math.floor(DEFAULT_RETRY_SCHEDULE_MS[i + 1]! / TIME_SCALE) - 1,
      );
      expect(attempts[i + 1]!.at.getTime()).toBeGreaterThanOrEqual(attempts[i]!.nextRetryAt!.getTime());
    }
    expect(attempts.at(-1)!.nextRetryAt).toBeNull(); // schedule exhausted: the message failed
    const stats = await sim.stats();
    expect(stats.messages.failed).toBeGreaterThanOrEqual(1);

    // Redeliver one attempt by hand: one manual attempt, which now succeeds.
    answers.set("/failing", 200);
    await client.redeliver({ hookId, deliveryId: attempts[0]!.id });
    await waitUntil(async () => (await attemptsOf()).some((a) => a.trigger === "manual"));
    const manual = (await attemptsOf()).find((a) => a.trigger === "manual")!;
    expect(manual).toMatchObject({
      attempt: DEFAULT_RETRY_SCHEDULE_MS.length + 1,
      succeeded: true,
      statusCode: 200,
      nextRetryAt: null,
    });

    // Bulk: two more events fail for good; a dry run counts them, the real run redelivers them.
    answers.set("/failing", 500);
    const a = await client.revokeKey({ tenantId: "district-fail", keyId: issued.key.id, idempotencyKey: "sim-fail-2" });
    const b = await client.issueKey({ tenantId: "district-fail", scopes: ["a"], idempotencyKey: "sim-fail-3" });
    const exhausted = async (id: string) =>
      (await client.listDeliveries({ hookId, eventId: id })).items.length === DEFAULT_RETRY_SCHEDULE_MS.length;
    await waitUntil(async () => (await exhausted(a.eventId!)) && (await exhausted(b.eventId!)));
    const window = { hookId, since, until: new Date(Date.now() + 1_000) };
    expect(await client.redeliverFailed({ ...window, dryRun: true })).toEqual({ count: 2 });
    answers.set("/failing", 200);
    expect(await client.redeliverFailed({ ...window, dryRun: false })).toEqual({ count: 2 });
    await waitUntil(
      async () => (await client.listDeliveries({ hookId, status: "succeeded", since })).items.length === 3,
    );
    expect(await client.redeliverFailed({ ...window, dryRun: true })).toEqual({ count: 0 });
    // Outside the window: nothing.
    expect(await client.redeliverFailed({ hookId, since: new Date(0), until: new Date(1_000), dryRun: true })).toEqual({
      count: 0,
    });
  });

  it("badSignatureNext spoils the next events' first scheduled attempts; a later slot and a redelivery are signed right", async () => {
    const { hookId } = await client.registerWebhook({ url: `${receiverUrl}/verifying`, idempotencyKey: "sim-badsig" });
    await sim.setFaults({ badSignatureNext: 1, badSignatureAttempts: 2 });
    const spoiled = await client.issueKey({ tenantId: "district-badsig", scopes: ["a"], idempotencyKey: "sim-bs-1" });
    const fine = await client.issueKey({ tenantId: "district-badsig-2", scopes: ["a"], idempotencyKey: "sim-bs-2" });
    const attemptsOf = async (eventId: string) =>
      (await client.listDeliveries({ hookId, eventId })).items.sort((a, b) => a.attempt - b.attempt);
    await waitUntil(async () => (await attemptsOf(spoiled.eventId!)).some((a) => a.succeeded));
    expect((await attemptsOf(spoiled.eventId!)).map((a) => [a.attempt, a.statusCode, a.succeeded])).toEqual([
      [1, 401, false],
      [2, 401, false],
      [3, 200, true],
    ]);
    // Only the next N events: the one after is signed right at once, and the knob is spent.
    await waitUntil(async () => (await attemptsOf(fine.eventId!)).length === 1);
    expect((await attemptsOf(fine.eventId!))[0]).toMatchObject({ statusCode: 200, succeeded: true });
    expect((await sim.control<{ badSignatureNext: number }>("GET", "/_sim/faults")).badSignatureNext).toBe(0);

    // A manual redelivery of a spoiled event is signed right, whatever its schedule.
    await sim.setFaults({ badSignatureNext: 1, badSignatureAttempts: 8 });
    const stuck = await client.issueKey({ tenantId: "district-badsig-3", scopes: ["a"], idempotencyKey: "sim-bs-3" });
    await waitUntil(async () => (await attemptsOf(stuck.eventId!)).length >= 1);
    const [first] = await attemptsOf(stuck.eventId!);
    expect(first).toMatchObject({ statusCode: 401, succeeded: false });
    await client.redeliver({ hookId, deliveryId: first!.id });
    await waitUntil(async () => (await attemptsOf(stuck.eventId!)).some((a) => a.trigger === "manual"));
    expect((await attemptsOf(stuck.eventId!)).find((a) => a.trigger === "manual")).toMatchObject({
      statusCode: 200,
      succeeded: true,
    });
  });

  it("gives each tenant's events an increasing sequence and refuses impossible key operations", async () => {
    const one = await client.issueKey({ tenantId: "district-seq", scopes: ["a"], idempotencyKey: "seq-1" });
    const two = await client.rotateKey({ tenantId: "district-seq", keyId: one.key.id, idempotencyKey: "seq-2" });
    const three = await client.revokeKey({ tenantId: "district-seq", keyId: two.key.id, idempotencyKey: "seq-3" });
    const other = await client.issueKey({ tenantId: "district-seq-other", scopes: ["a"], idempotencyKey: "seq-4" });
    const truth = await sim.control<{ tenants: { id: string; sequence: number }[] }>("GET", "/_sim/truth");
    expect(truth.tenants.find((t) => t.id === "district-seq")!.sequence).toBe(3);
    expect(truth.tenants.find((t) => t.id === "district-seq-other")!.sequence).toBe(1);
    expect(three.key.status).toBe("revoked");
    expect(other.previousKeyId).toBeNull();

    // Revocation is monotonic: again is fine and emits nothing; a revoked key cannot be rotated.
    expect(
      await client.revokeKey({ tenantId: "district-seq", keyId: two.key.id, idempotencyKey: "seq-5" }),
    ).toMatchObject({ eventId: null });
    await expect(
      client.rotateKey({ tenantId: "district-seq", keyId: two.key.id, idempotencyKey: "seq-6" }),
    ).rejects.toMatchObject({ code: "conflict" });
    // Another tenant's key is not found, never touched.
    await expect(
      client.revokeKey({ tenantId: "district-seq", keyId: other.key.id, idempotencyKey: "seq-7" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      client.issueKey({ tenantId: "district-seq-other", scopes: ["a"], idempotencyKey: "seq-8" }),
    ).rejects.toMatchObject({ code: "conflict" });
  });

  it("answers a path with broken percent-encoding 400, in any segment, never 500", async () => {
    for (const path of [
      "/v1/account/webhooks/%E0%A4%A",
      "/v1/account/webhooks/deliveries/hook_1/%E0%A4%A/redeliver",
      "/v1/tenants/%ZZ/keys",
    ]) {
      const method = path.endsWith("/keys") || !path.endsWith("redeliver") ? "GET" : "POST";
      const reply = await fetch(sim.url + path, {
        method,
        headers: { authorization: `Bearer ${DEV_PROVIDER_API_KEY}` },
      });
      expect(reply.status, path).toBe(400);
      expect(await reply.json(), path).toMatchObject({ error: { code: "bad_path" } });
    }
  });

  it("answers 429 with Retry-After on API calls when told to", async () => {
    await sim.setFaults({ apiRateLimitNext: 1, apiRetryAfterSeconds: 2 });
    const once = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 });
    await expect(
      once.issueKey({ tenantId: "district-429", scopes: ["a"], idempotencyKey: "rl-1" }),
    ).rejects.toMatchObject({ code: "rate_limited", retryAfterMs: 2_000 });
    // Nothing happened on the 429: the same call now mints the key.
    expect((await once.issueKey({ tenantId: "district-429", scopes: ["a"], idempotencyKey: "rl-1" })).key.status).toBe(
      "active",
    );
  });

  it("refuses a wrong bearer key", async () => {
    const wrong = createProviderClient({ baseUrl: sim.url, apiKey: "pk_wrong_key_123", maxRetries: 0 });
    await expect(wrong.listDeliveries({ hookId: "hook_x" })).rejects.toMatchObject({
      code: "unauthorized",
      status: 401,
    });
  });
});
