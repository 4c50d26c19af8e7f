import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { activeKeyIds, keyStatuses, ledgerCount, receiptsFor, resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";

beforeEach(resetDatabase);

describe("at most once per event (invariant 1)", () => {
  it("answers duplicate for the same signed body posted twice and mints no second key", async () => {
    const created = keyEvent({ type: "key.created", tenantId: "district-4417", keyId: "key_a", sequence: 1 });

    const first = await deliver(created);
    const second = await deliver(created);

    expect(first).toEqual({ status: 200, body: { outcome: "applied" } });
    expect(second.status).toBe(200);
    expect(second.body.outcome).toBe("duplicate");
    expect(second.body.first_outcome).toBe("applied");
    expect(await prisma.apiKey.count()).toBe(1);
    expect(await ledgerCount()).toBe(1);
    const receipts = await receiptsFor(String(created.id));
    expect(receipts.map((r) => [r.status, r.outcome, r.signatureVerdict])).toEqual([
      [200, "applied", "valid"],
      [200, "duplicate", "valid"],
    ]);
  });

  it("50 concurrent identical deliveries apply exactly once", async () => {
    const created = keyEvent({ type: "key.created", tenantId: "district-9", keyId: "key_c", sequence: 7 });

    const answers = await Promise.all(Array.from({ length: 50 }, () => deliver(created)));

    const outcomes = answers.map((a) => a.body.outcome);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(outcomes.filter((o) => o === "applied")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "duplicate")).toHaveLength(49);
    expect(await ledgerCount({ eventId: String(created.id) })).toBe(1);
    expect(await activeKeyIds("district-9")).toEqual(["key_c"]);
    expect(await prisma.receipt.count({ where: { eventId: String(created.id) } })).toBe(50);
  });

  it("claims per tenant: the same event id under two tenants is two events", async () => {
    const a = await deliver(
      keyEvent({ id: "evt_same", type: "key.created", tenantId: "district-a", keyId: "key_a", sequence: 1 }),
    );
    const b = await deliver(
      keyEvent({ id: "evt_same", type: "key.created", tenantId: "district-b", keyId: "key_b", sequence: 1 }),
    );

    expect([a.body.outcome, b.body.outcome]).toEqual(["applied", "applied"]);
    expect(await keyStatuses("district-a")).toEqual({ key_a: "active" });
    expect(await keyStatuses("district-b")).toEqual({ key_b: "active" });
  });

  it("runs the claim transaction at READ COMMITTED", async () => {
    const level = await prisma.$transaction(
      (tx) => tx.$queryRaw<{ transaction_isolation: string }[]>`SHOW transaction_isolation`,
    );
    expect(level[0]?.transaction_isolation).toBe("read committed");
  });
});
