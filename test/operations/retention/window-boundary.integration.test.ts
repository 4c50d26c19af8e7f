// docs/design.md, invariant 6 against the ingest path: a redelivery inside the retention window is a
// duplicate; one after it is a new claim that goes through the ordering rules again, which still
// never bring a revoked or rotated-out key back. The clock is the purge's `now`.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { updateRetentionSettings } from "@/lib/operations/retention/settings";
import { activeKeyIds, keyStatuses, ledgerCount, resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";
import { DAY_MS } from "../../support/ledger-rows";
import type { Actor } from "@/lib/core/auth/actor";

const PLATFORM_ADMIN: Actor = {
  id: "u_admin",
  email: "admin@example.test",
  name: null,
  role: "platform_admin",
  tenantId: null,
};

beforeEach(resetDatabase);

async function receivedAt(eventId: unknown): Promise<number> {
  const claim = await prisma.processedEvent.findFirstOrThrow({ where: { eventId: String(eventId) } });
  return claim.receivedAt.getTime();
}

describe("a redelivery on either side of the retention window", () => {
  it("inside: absorbed as a duplicate; after: re-checked by the ordering rules, and a revoked key stays revoked", async () => {
    const tenantId = "district-4417";
    const created = keyEvent({ type: "key.created", tenantId, keyId: "key_a", sequence: 1 });
    const revoked = keyEvent({ type: "key.revoked", tenantId, keyId: "key_a", sequence: 2 });
    expect((await deliver(created)).body.outcome).toBe("applied");
    expect((await deliver(revoked)).body.outcome).toBe("applied");
    const firstClaimAt = await receivedAt(created.id);
    const lastClaimAt = await receivedAt(revoked.id);

    // The last instant inside the window of the OLDEST claim: nothing is purged yet.
    const inside = await runPurge({ trigger: "manual", now: new Date(firstClaimAt + 14 * DAY_MS), pauseMs: 0 });
    expect(inside.claimsDeleted).toBe(0);
    const lateRetry = await deliver(created);
    expect(lateRetry).toEqual({ status: 200, body: { outcome: "duplicate", first_outcome: "applied" } });
    expect(await keyStatuses(tenantId)).toEqual({ key_a: "revoked" });

    // One millisecond past the window of the NEWEST claim: both claims are gone.
    const after = await runPurge({ trigger: "manual", now: new Date(lastClaimAt + 14 * DAY_MS + 1), pauseMs: 0 });
    expect(after.claimsDeleted).toBe(2);
    expect(await ledgerCount({ tenantId })).toBe(0);

    // The create is a new claim now, but its sequence is not above the high-water mark: stale.
    const veryLateCreate = await deliver(created);
    expect(veryLateCreate.status).toBe(200);
    expect(veryLateCreate.body.outcome).toBe("stale");
    expect(await keyStatuses(tenantId)).toEqual({ key_a: "revoked" });
    expect(await activeKeyIds(tenantId)).toEqual([]);

    // The revoke applies again, harmlessly: revoked is terminal.
    const veryLateRevoke = await deliver(revoked);
    expect(veryLateRevoke.body.outcome).toBe("applied");
    expect(await keyStatuses(tenantId)).toEqual({ key_a: "revoked" });
    expect(await ledgerCount({ tenantId })).toBe(2);
  });

  it("after the window, even in reverse order, a rotated-out key never comes back (stored 3-day window)", async () => {
    await updateRetentionSettings({ retentionDays: 3, retryHorizonHours: 47, actor: PLATFORM_ADMIN });
    const tenantId = "district-9";
    const created = keyEvent({ type: "key.created", tenantId, keyId: "key_old", sequence: 1 });
    const rotated = keyEvent({
      type: "key.rotated",
      tenantId,
      keyId: "key_new",
      previousKeyId: "key_old",
      sequence: 2,
    });
    await deliver(created);
    await deliver(rotated);
    const lastClaimAt = await receivedAt(rotated.id);

    // The rotation's claim is exactly at the cutoff: still inside its window.
    await runPurge({ trigger: "manual", now: new Date(lastClaimAt + 3 * DAY_MS), pauseMs: 0 });
    expect(await ledgerCount({ eventId: String(rotated.id) })).toBe(1);
    expect((await deliver(rotated)).body.outcome).toBe("duplicate");

    await runPurge({ trigger: "manual", now: new Date(lastClaimAt + 3 * DAY_MS + 1), pauseMs: 0 });
    expect(await ledgerCount({ tenantId })).toBe(0);

    // Redeliver the whole history newest first: the state must not move.
    expect((await deliver(rotated)).body.outcome).toBe("stale");
    expect((await deliver(created)).body.outcome).toBe("stale");
    expect(await keyStatuses(tenantId)).toEqual({ key_new: "active", key_old: "rotated" });
    expect(await activeKeyIds(tenantId)).toEqual(["key_new"]);
  });
});
