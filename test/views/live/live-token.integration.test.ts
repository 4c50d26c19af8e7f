// The change token open pages poll: it moves when something a page shows changes, a district
// admin's moves only for their own district, and inactive keys page past 20 (keyset).
import { beforeEach, describe, expect, it } from "vitest";
import { raiseAlert, resolveAlerts } from "@/lib/operations/alerts/upsert-alert";
import { getDistrict, INACTIVE_KEYS_PER_PAGE, RECENT_KEY_MINUTES } from "@/lib/views/districts/get-district";
import { revokeKey } from "@/lib/core/keys/revoke-key";
import { changeToken, forgetSharedTokensForTests } from "@/lib/views/live/change-token";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";
import { OTHER, OWN, seedTwoDistricts, type Actors } from "../../support/dashboard-fixtures";

let actors: Actors;
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
  forgetSharedTokensForTests();
});

// Each read gets its own moment past the sharing window, so nothing is served from the cache.
let clock = Date.now();
const token = (actor: Actors[keyof Actors]) => changeToken({ actor, now: (clock += 5_000) });

describe("changeToken", () => {
  it("moves for staff on any new delivery or human action", async () => {
    const before = await token(actors.support);
    expect(await token(actors.support)).toBe(before);
    await deliver(keyEvent({ type: "key.created", tenantId: OTHER, keyId: "key_new", sequence: 10 }));
    const afterEvent = await token(actors.support);
    expect(afterEvent).not.toBe(before);
    await revokeKey({ actor: actors.platformAdmin, keyId: "key_new" });
    expect(await token(actors.support)).not.toBe(afterEvent);
  });

  it("moves for a district admin on their district's events and key changes only", async () => {
    const before = await token(actors.districtAdmin);
    await deliver(keyEvent({ type: "key.created", tenantId: OTHER, keyId: "key_other_new", sequence: 10 }));
    expect(await token(actors.districtAdmin)).toBe(before);
    await revokeKey({ actor: actors.platformAdmin, keyId: `key_${OWN}_2` });
    const afterRevoke = await token(actors.districtAdmin);
    expect(afterRevoke).not.toBe(before);
    // The provider's confirmation is a new event of the district.
    await deliver(keyEvent({ type: "key.revoked", tenantId: OWN, keyId: `key_${OWN}_2`, sequence: 11 }));
    expect(await token(actors.districtAdmin)).not.toBe(afterRevoke);
  });

  it("moves when a background job raises, refreshes or resolves an alert, for the alert's district only", async () => {
    const staffBefore = await token(actors.support);
    const ownBefore = await token(actors.districtAdmin);
    const otherBefore = await token(actors.otherDistrictAdmin);
    // What the sweep, the drift check or the notifier do: no receipt, claim or audit row.
    const subject = `drift/${OWN}/key_drifted`;
    await raiseAlert({ kind: "drift_local_active", subject, tenantId: OWN, now: new Date() });
    const staffRaised = await token(actors.support);
    expect(staffRaised).not.toBe(staffBefore);
    const ownRaised = await token(actors.districtAdmin);
    expect(ownRaised).not.toBe(ownBefore);
    expect(await token(actors.otherDistrictAdmin)).toBe(otherBefore);

    await raiseAlert({ kind: "drift_local_active", subject, tenantId: OWN, now: new Date(Date.now() + 60_000) });
    const ownRefreshed = await token(actors.districtAdmin);
    expect(ownRefreshed).not.toBe(ownRaised);

    await resolveAlerts({ kind: "drift_local_active", subjects: [subject], now: new Date(Date.now() + 120_000) });
    expect(await token(actors.districtAdmin)).not.toBe(ownRefreshed);
    expect(await token(actors.otherDistrictAdmin)).toBe(otherBefore);
  });

  it("polls of one scope within a second share one read", async () => {
    const now = (clock += 5_000);
    const first = await changeToken({ actor: actors.support, now });
    await deliver(keyEvent({ type: "key.created", tenantId: OTHER, keyId: "key_shared", sequence: 10 }));
    expect(await changeToken({ actor: actors.support, now: now + 500 })).toBe(first);
    expect(await changeToken({ actor: actors.support, now: now + 1_500 })).not.toBe(first);
  });
});

describe("getDistrict keys", () => {
  it("lists current keys first and pages the inactive ones by 20", async () => {
    // 25 rotations: each new key deactivates the previous one.
    for (let i = 0; i < 25; i++) {
      await deliver(
        keyEvent({
          type: "key.rotated",
          tenantId: OWN,
          keyId: `key_r_${i}`,
          previousKeyId: i === 0 ? `key_${OWN}_2` : `key_r_${i - 1}`,
          sequence: 10 + i,
        }),
      );
    }
    // Past the minutes a just-rotated key stays with the current keys (district-page.integration.test.ts).
    const later = new Date(Date.now() + (RECENT_KEY_MINUTES + 1) * 60_000);
    const first = await getDistrict({ actor: actors.districtAdmin, tenantId: OWN, now: later });
    expect(first.currentKeys.map((k) => k.id)).toEqual(["key_r_24"]);
    expect(first.inactiveCount).toBe(26);
    expect(first.inactiveByStatus.rotated + first.inactiveByStatus.revoked).toBe(26);
    expect(first.keyCounts.active).toBe(1);
    expect(Object.values(first.keyCounts).reduce((a, b) => a + b, 0)).toBe(27);
    expect(first.inactiveKeys).toHaveLength(INACTIVE_KEYS_PER_PAGE);
    expect(first.nextInactiveCursor).not.toBeNull();
    const second = await getDistrict({
      actor: actors.districtAdmin,
      tenantId: OWN,
      inactiveCursor: first.nextInactiveCursor!,
      now: later,
    });
    expect(second.inactiveKeys).toHaveLength(6);
    expect(second.nextInactiveCursor).toBeNull();
    expect(new Set([...first.inactiveKeys, ...second.inactiveKeys].map((k) => k.id)).size).toBe(26);
    // Filtered to one status: only keys of it, as many as its count, the total unchanged.
    const rotated = await getDistrict({
      actor: actors.districtAdmin,
      tenantId: OWN,
      inactiveStatus: "rotated",
      now: later,
    });
    expect(new Set(rotated.inactiveKeys.map((k) => k.status))).toEqual(new Set(["rotated"]));
    expect(rotated.inactiveKeys).toHaveLength(Math.min(INACTIVE_KEYS_PER_PAGE, first.inactiveByStatus.rotated));
    expect(rotated.inactiveCount).toBe(26);
    // A revoke waiting for the provider stays in view with the current keys.
    await revokeKey({ actor: actors.districtAdmin, keyId: "key_r_24" });
    const pending = await getDistrict({ actor: actors.districtAdmin, tenantId: OWN, now: later });
    expect(pending.currentKeys.map((k) => [k.id, k.status])).toEqual([["key_r_24", "revoked"]]);
  });
});
