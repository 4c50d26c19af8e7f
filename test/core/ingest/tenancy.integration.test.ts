import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { keyStatuses, resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";

beforeEach(resetDatabase);

describe("a key named with the wrong tenant (invariant 3)", () => {
  it.each([
    ["key.revoked", { keyId: "key_a" }],
    ["key.created", { keyId: "key_a" }],
    ["key.rotated", { keyId: "key_new", previousKeyId: "key_a" }],
  ] as const)("%s for tenant A's key sent as tenant B is quarantined and A's key is untouched", async (type, keys) => {
    await deliver(keyEvent({ type: "key.created", tenantId: "district-a", keyId: "key_a", sequence: 1 }));
    const before = await prisma.apiKey.findUniqueOrThrow({ where: { id: "key_a" } });

    const misrouted = keyEvent({ type, tenantId: "district-b", sequence: 10, ...keys });
    const answer = await deliver(misrouted);

    expect(answer.status).toBe(200);
    expect(answer.body.outcome).toBe("quarantined");
    expect(String(answer.body.reason)).toMatch(/belongs to another tenant/);
    expect(await prisma.apiKey.findUniqueOrThrow({ where: { id: "key_a" } })).toEqual(before);
    expect(await keyStatuses("district-b")).toEqual({});
    const ledger = await prisma.processedEvent.findUniqueOrThrow({
      where: { tenantId_eventId: { tenantId: "district-b", eventId: String(misrouted.id) } },
    });
    expect(ledger.outcome).toBe("quarantined");

    // A redelivery of the quarantined event is a duplicate, not a second look.
    expect((await deliver(misrouted)).body.outcome).toBe("duplicate");
  });

  it("facts that contradict what we hold (a different prefix for the same key) are quarantined", async () => {
    await deliver(
      keyEvent({ type: "key.created", tenantId: "district-a", keyId: "key_a", sequence: 1, prefix: "ik_live_aaaa" }),
    );
    const answer = await deliver(
      keyEvent({ type: "key.created", tenantId: "district-a", keyId: "key_a", sequence: 2, prefix: "ik_live_bbbb" }),
    );
    expect(answer.body.outcome).toBe("quarantined");
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: "key_a" } })).prefix).toBe("ik_live_aaaa");
  });
});
