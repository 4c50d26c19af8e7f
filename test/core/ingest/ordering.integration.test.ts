import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import {
  applyDeliveries,
  replayInOrder,
  type LifecycleEvent,
  type ModelDelivery,
} from "@/test/core/keys/lifecycle-model";
import { activeKeyIds, highWaterMark, keyStatuses, resetDatabase } from "../../support/state";
import { shuffle } from "../../support/shuffle";
import { deliver, keyEvent } from "../../support/webhooks";

beforeEach(resetDatabase);

type Sent = LifecycleEvent & { id: string };

function toBody(tenantId: string, event: Sent): Record<string, unknown> {
  return keyEvent({ ...event, tenantId });
}

async function deliverAll(tenantId: string, events: Sent[]): Promise<string[]> {
  const outcomes: string[] = [];
  for (const event of events) {
    const answer = await deliver(toBody(tenantId, event));
    expect(answer.status).toBe(200);
    outcomes.push(String(answer.body.outcome));
  }
  return outcomes;
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

describe("order (invariant 4)", () => {
  const history: Sent[] = [
    { id: "evt_1", type: "key.created", keyId: "key_a", sequence: 1 },
    { id: "evt_2", type: "key.rotated", keyId: "key_b", previousKeyId: "key_a", sequence: 2 },
    { id: "evt_3", type: "key.revoked", keyId: "key_b", sequence: 3 },
  ];

  it.each(permutations(history).map((order) => [order.map((e) => e.sequence).join(","), order] as const))(
    "created(1) rotated(2) revoked(3) in order %s converges to the in-order state",
    async (_label, order) => {
      const tenant = "district-perm";
      await deliverAll(tenant, order);
      expect(await keyStatuses(tenant)).toEqual({ key_a: "rotated", key_b: "revoked" });
      expect(await activeKeyIds(tenant)).toEqual([]);
      expect(await highWaterMark(tenant)).toBe(2);
    },
  );

  it("an issue re-sent under a NEW event id with an old sequence is stale and mints nothing", async () => {
    const tenant = "district-4417";
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_a", sequence: 5 }));
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_b", sequence: 6 }));

    const resent = await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_a", sequence: 5 }));
    const older = await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_z", sequence: 2 }));

    expect(resent.body.outcome).toBe("stale");
    expect(older.body.outcome).toBe("stale");
    expect(await activeKeyIds(tenant)).toEqual(["key_b"]);
    // key_z was issued by the provider but never became current: flagged for a human, not live.
    expect(await keyStatuses(tenant)).toEqual({ key_a: "superseded", key_b: "active", key_z: "superseded" });
  });

  it("a revocation applies at once and a later (reordered) activation never revives the key", async () => {
    const tenant = "district-12";
    const revoked = await deliver(keyEvent({ type: "key.revoked", tenantId: tenant, keyId: "key_x", sequence: 9 }));
    const created = await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_x", sequence: 4 }));

    expect(revoked.body.outcome).toBe("applied");
    expect(created.body.outcome).toBe("applied");
    expect(await keyStatuses(tenant)).toEqual({ key_x: "revoked" });
    const key = await prisma.apiKey.findUniqueOrThrow({ where: { id: "key_x" } });
    expect(key.prefix).toBe("ik_live_ey_x");
  });

  it("a newer activation supersedes a key still active and keeps the alert open until its deactivation", async () => {
    const tenant = "district-7";
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_old", sequence: 1 }));
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_new", sequence: 2 }));

    const old = await prisma.apiKey.findUniqueOrThrow({ where: { id: "key_old" } });
    expect(old.status).toBe("superseded");
    expect(old.supersededByKeyId).toBe("key_new");

    await deliver(keyEvent({ type: "key.revoked", tenantId: tenant, keyId: "key_old", sequence: 3 }));
    expect(await keyStatuses(tenant)).toEqual({ key_new: "active", key_old: "revoked" });
  });

  it("two concurrent creations for one tenant never leave two active keys", async () => {
    const tenant = "district-race";
    for (let round = 0; round < 10; round++) {
      const [a, b] = await Promise.all([
        deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: `key_${round}_a`, sequence: round * 2 + 1 })),
        deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: `key_${round}_b`, sequence: round * 2 + 2 })),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(await activeKeyIds(tenant)).toEqual([`key_${round}_b`]);
      const loser = await prisma.apiKey.findUniqueOrThrow({ where: { id: `key_${round}_a` } });
      expect(loser.status).toBe("superseded");
    }
  });

  it("the database itself refuses a second active key for a tenant", async () => {
    await deliver(keyEvent({ type: "key.created", tenantId: "district-db", keyId: "key_1", sequence: 1 }));
    await expect(
      prisma.apiKey.create({ data: { id: "key_2", tenantId: "district-db", status: "active" } }),
    ).rejects.toThrow(/Unique constraint|unique/i);
  });
});

describe("every permutation and duplication of a valid history converges (property)", () => {
  // A valid provider history for one tenant: keys are created, rotated and revoked, with
  // strictly increasing sequences. Delivered shuffled and with duplicates, through the real
  // handler and database, it must end where the in-order reference model ends.
  const historyArbitrary = fc
    .array(fc.constantFrom("create", "rotate", "revoke"), { minLength: 1, maxLength: 8 })
    .map((steps) => {
      const events: Sent[] = [];
      let current: string | null = null;
      let keyCounter = 0;
      steps.forEach((step, index) => {
        const sequence = index + 1;
        const id = `evt_${sequence}`;
        if (step === "create" || current === null) {
          current = `key_${++keyCounter}`;
          events.push({ id, type: "key.created", keyId: current, sequence });
        } else if (step === "rotate") {
          const next = `key_${++keyCounter}`;
          events.push({ id, type: "key.rotated", keyId: next, previousKeyId: current, sequence });
          current = next;
        } else {
          events.push({ id, type: "key.revoked", keyId: current, sequence });
          current = null;
        }
      });
      return events;
    });

  const deliveryArbitrary = historyArbitrary.chain((events) =>
    fc
      .tuple(fc.shuffledSubarray(events, { minLength: 0, maxLength: events.length }), fc.nat())
      .map(([duplicates, seed]) => ({ events, deliveries: shuffle([...events, ...duplicates], seed) })),
  );

  const asDelivery = (tenantId: string, event: Sent): ModelDelivery => ({
    tenantId,
    eventId: event.id,
    type: event.type,
    keyId: event.keyId,
    previousKeyId: event.type === "key.rotated" ? event.previousKeyId : null,
    sequence: event.sequence,
    prefix: event.type === "key.revoked" ? null : `ik_live_${event.keyId.slice(-4)}`, // buildKeyEvent's default
  });

  it("every answer is the model's; final key states equal in-order application; no revoked or rotated key is ever active again", async () => {
    await fc.assert(
      fc.asyncProperty(deliveryArbitrary, async ({ events, deliveries }) => {
        // Key ids are global (a key id seen under another tenant is quarantined): start clean.
        await resetDatabase();
        const tenant = "district-prop";
        const predicted = applyDeliveries(deliveries.map((event) => asDelivery(tenant, event)));
        const deactivated = new Set<string>();
        for (const [index, event] of deliveries.entries()) {
          const answer = await deliver(toBody(tenant, event));
          expect(answer.status).toBe(200);
          const expected = predicted.answers[index]!;
          expect(
            { outcome: answer.body.outcome, firstOutcome: answer.body.first_outcome ?? null },
            `delivery ${index}`,
          ).toEqual({
            outcome: expected.outcome,
            firstOutcome: expected.firstOutcome,
          });
          if (event.type === "key.revoked") deactivated.add(event.keyId);
          if (event.type === "key.rotated") deactivated.add(event.previousKeyId);
          const active = await activeKeyIds(tenant);
          expect(active.length).toBeLessThanOrEqual(1);
          for (const key of active) expect(deactivated.has(key)).toBe(false);
        }
        const expected = replayInOrder(events);
        expect(await keyStatuses(tenant)).toEqual(Object.fromEntries(Object.entries(expected.keys).sort()));
        // The arrival-order model converges to the in-order one too.
        expect(
          Object.fromEntries(Object.entries(predicted.database.keys).map(([id, key]) => [id, key.status])),
        ).toEqual(expected.keys);
        expect(await highWaterMark(tenant)).toBe(expected.highWaterMark);
        // Every event was delivered at least once: no sequence is missing any more.
        expect(await prisma.sequenceGap.findMany({ where: { tenantId: tenant, closedAt: null } })).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
