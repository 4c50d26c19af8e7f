import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { handleKeyWebhook } from "@/http/webhook/receive-key-webhook";
import { signDelivery } from "@/lib/operations/provider/signed-delivery";
import { resetDatabase } from "../../support/state";
import { TEST_SECRET, keyEvent, signedRequest } from "../../support/webhooks";

beforeEach(resetDatabase);

const valid = () =>
  keyEvent({ id: "evt_bad_1", type: "key.created", tenantId: "district-1", keyId: "key_1", sequence: 1 });

async function answer(request: Request) {
  const response = await handleKeyWebhook(request);
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

async function expectNoStateChange() {
  expect(await prisma.apiKey.count()).toBe(0);
  expect(await prisma.tenant.count()).toBe(0);
}

describe("bad input gets its documented status, a stored receipt and changes nothing", () => {
  it.each([
    ["not JSON", () => signedRequest("{not json", { webhookId: "evt_raw" }), 400, "valid"],
    [
      "missing id",
      () => {
        const e = valid();
        delete e.id;
        return signedRequest(JSON.stringify(e), { webhookId: "evt_x" });
      },
      400,
      "valid",
    ],
    [
      "missing sequence",
      () => {
        const e = valid();
        delete e.sequence;
        return signedRequest(e);
      },
      400,
      "valid",
    ],
    [
      "webhook-id differs from id",
      () => signedRequest(JSON.stringify(valid()), { webhookId: "evt_other" }),
      400,
      "valid",
    ],
    [
      "wrong secret",
      () => signedRequest(valid(), { secrets: ["whsec_" + Buffer.from("another-secret-entirely").toString("base64")] }),
      401,
      "invalid",
    ],
    [
      "timestamp 301 s old",
      () => signedRequest(valid(), { timestamp: new Date(Date.now() - 301_000) }),
      401,
      "expired",
    ],
    [
      "no signature headers",
      () => signedRequest(valid(), { headers: { "webhook-signature": null, "webhook-timestamp": null } }),
      401,
      "missing",
    ],
    ["GET", () => signedRequest(valid(), { method: "GET" }), 405, "not_checked"],
    ["an escaped NUL PostgreSQL cannot store", () => signedRequest({ ...valid(), key_id: "key_\u0000" }), 400, "valid"],
  ] as const)("%s", async (_name, build, status, verdict) => {
    const result = await answer(build());

    expect(result.status).toBe(status);
    expect(typeof result.body.error).toBe("string");
    expect(result.text).not.toMatch(/at .*\.ts:\d+/); // never a stack trace
    const receipts = await prisma.receipt.findMany();
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ status, signatureVerdict: verdict });
    await expectNoStateChange();
    expect(await prisma.processedEvent.count()).toBe(0);
  });

  it("one byte of the body changed after signing → 401", async () => {
    const body = JSON.stringify(valid());
    const signed = signDelivery({ body, webhookId: "evt_bad_1", secrets: [TEST_SECRET] });
    const tampered = body.replace('"sequence":1', '"sequence":2');
    const result = await answer(
      new Request("http://keyhook.test/api/webhooks/keys", { method: "POST", headers: signed.headers, body: tampered }),
    );
    expect(result.status).toBe(401);
    await expectNoStateChange();
  });

  it("a 2 MB body → 413 without reading it all", async () => {
    const huge = JSON.stringify({ ...valid(), padding: "x".repeat(2 * 1024 * 1024) });
    const result = await answer(signedRequest(huge, { webhookId: "evt_bad_1" }));
    expect(result.status).toBe(413);
    expect((await prisma.receipt.findFirstOrThrow()).status).toBe(413);
    await expectNoStateChange();
  });

  it("a 2 MB body streamed without content-length → 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 32) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const signed = signDelivery({ body: "irrelevant", webhookId: "evt_bad_1", secrets: [TEST_SECRET] });
    const request = new Request("http://keyhook.test/api/webhooks/keys", {
      method: "POST",
      headers: signed.headers,
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect((await answer(request)).status).toBe(413);
    expect(sent).toBeLessThan(32);
  });

  it("an unknown event type is acknowledged as ignored and kept", async () => {
    const event = { id: "evt_future", type: "key.renamed", tenant_id: "district-1", key_id: "key_1", sequence: 3 };
    const result = await answer(signedRequest(event));
    expect(result).toMatchObject({ status: 200, body: { outcome: "ignored" } });
    const ledger = await prisma.processedEvent.findFirstOrThrow();
    expect(ledger).toMatchObject({ eventId: "evt_future", outcome: "ignored", type: "key.renamed" });
    expect(ledger.payload).toEqual(event);
    expect(await prisma.apiKey.count()).toBe(0);
  });

  it("accepts a delivery signed with either secret during a secret rotation", async () => {
    const next = "whsec_" + Buffer.from("the-next-secret-of-the-provider").toString("base64");
    process.env.WEBHOOK_SECRETS = `${TEST_SECRET}, ${next}`;
    const { resetEnvForTests } = await import("@/lib/core/config/env");
    resetEnvForTests();
    try {
      const result = await answer(signedRequest(valid(), { secrets: [next] }));
      expect(result.body.outcome).toBe("applied");
    } finally {
      delete process.env.WEBHOOK_SECRETS;
      resetEnvForTests();
    }
  });
});
