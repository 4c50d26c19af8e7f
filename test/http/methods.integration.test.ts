// Every method but POST on the webhook route module itself → 405, Allow: POST, and a receipt.
// OPTIONS and HEAD are exported on purpose: Next would otherwise answer OPTIONS itself (204, no
// receipt) and HEAD with the GET handler's answer minus its body.
import { beforeEach, describe, expect, it } from "vitest";
import * as route from "@/app/api/webhooks/keys/route";
import { prisma } from "@/lib/core/db/client";
import { resetDatabase } from "../support/state";
import { keyEvent, signedRequest } from "../support/webhooks";

beforeEach(resetDatabase);

describe("/api/webhooks/keys methods", () => {
  it.each(["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"] as const)("%s → 405 with a receipt", async (method) => {
    const handler = route[method];
    expect(handler, `the route exports ${method}`).toBeTypeOf("function");
    const event = keyEvent({
      id: `evt_${method}`,
      type: "key.created",
      tenantId: "district-m",
      keyId: "key_m",
      sequence: 1,
    });
    const response = await handler(signedRequest(event, { method }));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({ error: `method ${method} not allowed; use POST` });
    expect(
      await prisma.receipt.findMany({ select: { status: true, webhookId: true, signatureVerdict: true } }),
    ).toEqual([{ status: 405, webhookId: `evt_${method}`, signatureVerdict: "not_checked" }]);
    expect(await prisma.processedEvent.count()).toBe(0);
  });

  it("POST is the ingest", async () => {
    const response = await route.POST(
      signedRequest(
        keyEvent({ id: "evt_post", type: "key.created", tenantId: "district-m", keyId: "key_m", sequence: 1 }),
      ),
    );
    expect(response.status).toBe(200);
  });
});
