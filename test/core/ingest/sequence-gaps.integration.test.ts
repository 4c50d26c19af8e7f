// Sequence gaps: a skipped number in a district's dense sequence is recorded in the
// ingest statement, closed by the missing event's arrival (whatever its outcome), and turned into
// an alert once it has stayed open past the provider's retry horizon (controlled clock).
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { resetEnvForTests } from "@/lib/core/config/env";
import { GAP_ALERT_KIND, raiseGapAlerts } from "@/lib/operations/alerts/raise-gap-alerts";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";

beforeEach(resetDatabase);

const T = "district-gaps";

async function openGaps(tenantId = T) {
  const rows = await prisma.sequenceGap.findMany({ where: { tenantId, closedAt: null }, orderBy: { fromSeq: "asc" } });
  return rows.map((g) => [Number(g.fromSeq), Number(g.toSeq)]);
}

const created = (sequence: number, id?: string) =>
  keyEvent({ type: "key.created", tenantId: T, keyId: `key_${sequence}`, sequence, id });

describe("sequence gaps", () => {
  it("1, 2, 4 → gap {3}; 3 arrives → closed", async () => {
    for (const s of [1, 2, 4]) expect((await deliver(created(s))).status).toBe(200);
    expect(await openGaps()).toEqual([[3, 3]]);
    const gap = await prisma.sequenceGap.findFirstOrThrow({ where: { tenantId: T } });
    expect(gap.firstNoticedAt).toBeInstanceOf(Date);

    const late = await deliver(created(3));
    expect(late.body.outcome).toBe("stale"); // 4 activated first: 3 activates nothing, yet it arrived
    expect(await openGaps()).toEqual([]);
    expect((await prisma.sequenceGap.findFirstOrThrow({ where: { tenantId: T } })).closedAt).not.toBeNull();
  });

  it("an arrival inside a wider gap splits it; the first sequence of a district is its baseline", async () => {
    for (const s of [5, 10]) await deliver(created(s));
    expect(await openGaps()).toEqual([[6, 9]]);
    await deliver(created(8));
    expect(await openGaps()).toEqual([
      [6, 7],
      [9, 9],
    ]);
    await deliver(created(6));
    await deliver(created(9));
    expect(await openGaps()).toEqual([[7, 7]]);
  });

  it("a quarantined or unknown-type delivery of the missing sequence closes it too", async () => {
    for (const s of [1, 3, 5]) await deliver(created(s));
    expect(await openGaps()).toEqual([
      [2, 2],
      [4, 4],
    ]);
    // key_x belongs to another district: naming it under this one is quarantined, yet 4 arrived.
    await deliver(keyEvent({ type: "key.created", tenantId: "district-other", keyId: "key_x", sequence: 1 }));
    const misrouted = await deliver(keyEvent({ type: "key.created", tenantId: T, keyId: "key_x", sequence: 4 }));
    const unknown = await deliver({ id: "evt_unknown_2", type: "key.renamed", tenant_id: T, sequence: 2 });
    expect(unknown.body.outcome).toBe("ignored");
    expect(misrouted.body.outcome).toBe("quarantined");
    expect(await openGaps()).toEqual([]);
  });

  it("a duplicate delivery of the missing sequence closes a gap its first delivery left open", async () => {
    for (const s of [1, 2, 3]) await deliver(created(s, `evt_${s}`));
    // A gap recorded while 3 was already claimed (e.g. noticed by a restore of an older backup).
    await prisma.sequenceGap.create({ data: { tenantId: T, fromSeq: 3n, toSeq: 3n } });
    const duplicate = await deliver(created(3, "evt_3"));
    expect(duplicate.body.outcome).toBe("duplicate");
    expect(await openGaps()).toEqual([]);
  });

  it("a stale delivery of the missing sequence closes it", async () => {
    for (const s of [1, 2, 4]) await deliver(created(s));
    const stale = await deliver(keyEvent({ type: "key.created", tenantId: T, keyId: "key_3_resent", sequence: 3 }));
    expect(stale.body.outcome).toBe("stale");
    expect(await openGaps()).toEqual([]);
  });

  it("a gap open longer than the retry horizon becomes an alert; closing it resolves the alert", async () => {
    for (const s of [1, 2, 4]) await deliver(created(s));
    const gap = await prisma.sequenceGap.findFirstOrThrow({ where: { tenantId: T } });
    const horizonMs = 28 * 3_600_000;

    // Just inside the horizon: nothing yet.
    expect(
      (await raiseGapAlerts({ now: new Date(gap.firstNoticedAt.getTime() + horizonMs), retryHorizonHours: 28 })).raised,
    ).toBe(0);
    expect(await prisma.alert.count()).toBe(0);

    const later = new Date(gap.firstNoticedAt.getTime() + horizonMs + 1_000);
    expect((await raiseGapAlerts({ now: later, retryHorizonHours: 28 })).raised).toBe(1);
    const alert = await prisma.alert.findFirstOrThrow();
    expect({ kind: alert.kind, state: alert.state, tenantId: alert.tenantId }).toEqual({
      kind: GAP_ALERT_KIND,
      state: "open",
      tenantId: T,
    });
    expect(alert.subject).toBe(`sequence_gaps/${gap.id}`);
    expect(alert.details).toMatchObject({ from_sequence: 3, to_sequence: 3 });
    // Raising again refreshes the same row.
    await raiseGapAlerts({ now: new Date(later.getTime() + 60_000), retryHorizonHours: 28 });
    expect(await prisma.alert.count()).toBe(1);

    await deliver(created(3));
    expect((await raiseGapAlerts({ now: new Date(later.getTime() + 120_000), retryHorizonHours: 28 })).resolved).toBe(
      1,
    );
    expect((await prisma.alert.findFirstOrThrow()).state).toBe("resolved");
  });

  it("PROVIDER_SEQUENCES_DENSE=0: no gaps are tracked", async () => {
    process.env.PROVIDER_SEQUENCES_DENSE = "0";
    resetEnvForTests();
    try {
      for (const s of [1, 2, 40]) await deliver(created(s));
      expect(await openGaps()).toEqual([]);
    } finally {
      delete process.env.PROVIDER_SEQUENCES_DENSE;
      resetEnvForTests();
    }
  });
});
