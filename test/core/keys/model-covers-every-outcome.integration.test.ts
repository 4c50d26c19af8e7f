// The reference model (test/core/keys/lifecycle-model.ts) predicts every answer of the ingest, for any
// traffic: two districts sharing a small pool of key ids (so keys of another tenant appear),
// rotations naming one key twice, contradicting prefixes, unknown event types, event ids reused
// and re-sent, sequences in any order. Every answer and the final rows are compared with it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { applyDeliveries, type ModelAnswer, type ModelDelivery } from "@/test/core/keys/lifecycle-model";
import { INGEST_OUTCOMES } from "@/lib/core/vocabulary";
import { shuffle } from "../../support/shuffle";
import { highWaterMark, resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";

const TENANTS = ["district-model-a", "district-model-b"];
const KEYS = ["key_m1", "key_m2", "key_m3", "key_m4"];

const deliveryArbitrary: fc.Arbitrary<ModelDelivery> = fc
  .record({
    tenantId: fc.constantFrom(...TENANTS),
    eventId: fc.integer({ min: 1, max: 10 }).map((n) => `evt_m${n}`),
    type: fc.constantFrom(
      "key.created",
      "key.created",
      "key.rotated",
      "key.rotated",
      "key.revoked",
      "key.revoked",
      "key.suspended",
    ),
    keyId: fc.constantFrom(...KEYS),
    previousKeyId: fc.constantFrom(...KEYS),
    sequence: fc.integer({ min: 1, max: 8 }),
    contradictPrefix: fc.boolean(),
  })
  .map(({ contradictPrefix, ...d }) => ({
    ...d,
    previousKeyId: d.type === "key.rotated" ? d.previousKeyId : null,
    // buildKeyEvent states a prefix for every type but key.revoked.
    prefix: d.type === "key.revoked" ? null : contradictPrefix ? "ik_live_other" : `ik_live_${d.keyId}`,
  }));

/** Random traffic, then some of it re-sent (the provider's retries), all in a random order. */
const trafficArbitrary = fc
  .array(deliveryArbitrary, { minLength: 1, maxLength: 12 })
  .chain((sent) =>
    fc
      .tuple(fc.shuffledSubarray(sent, { minLength: 0, maxLength: Math.min(sent.length, 4) }), fc.nat())
      .map(([again, seed]) => shuffle([...sent, ...again], seed)),
  );

function body(delivery: ModelDelivery): Record<string, unknown> {
  return keyEvent({
    id: delivery.eventId,
    type: delivery.type,
    tenantId: delivery.tenantId,
    keyId: delivery.keyId,
    previousKeyId: delivery.previousKeyId ?? undefined,
    sequence: delivery.sequence,
    prefix: delivery.prefix ?? undefined,
  });
}

const coverage = (answers: ModelAnswer[]) => new Set(answers.flatMap((a) => [a.outcome, ...(a.note ? [a.note] : [])]));

describe("the reference model covers every outcome (property)", () => {
  it("the traffic makes the model produce every outcome, every cause of quarantine and tombstones", () => {
    const seen = new Set<string>();
    for (const traffic of fc.sample(trafficArbitrary, { numRuns: 400, seed: 14 })) {
      for (const item of coverage(applyDeliveries(traffic).answers)) seen.add(item);
    }
    expect([...seen].sort()).toEqual(
      [
        ...INGEST_OUTCOMES,
        "key of another tenant",
        "previous key of another tenant",
        "rotation names one key twice",
        "prefix contradicts ours",
        "tombstone",
      ].sort(),
    );
  });

  it("every answer of the ingest, and the keys and high-water marks it leaves, are the model's", async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(trafficArbitrary, async (traffic) => {
        await resetDatabase();
        const predicted = applyDeliveries(traffic);
        for (const [index, delivery] of traffic.entries()) {
          const answer = await deliver(body(delivery));
          expect(answer.status).toBe(200);
          const expected = predicted.answers[index]!;
          expect(
            { outcome: answer.body.outcome, firstOutcome: answer.body.first_outcome ?? null },
            `delivery ${index}`,
          ).toEqual({
            outcome: expected.outcome,
            firstOutcome: expected.firstOutcome,
          });
          seen.add(expected.outcome);
        }
        const rows = await prisma.apiKey.findMany({ select: { id: true, tenantId: true, status: true, prefix: true } });
        expect(Object.fromEntries(rows.map(({ id, ...key }) => [id, key]))).toEqual(predicted.database.keys);
        for (const tenant of TENANTS)
          expect(await highWaterMark(tenant)).toBe(predicted.database.highWaterMarks[tenant] ?? 0);
      }),
      { numRuns: 80 },
    );
    // The traffic reached every outcome through the database too, not only in the model.
    expect([...seen].sort()).toEqual([...INGEST_OUTCOMES].sort());
  });
});
