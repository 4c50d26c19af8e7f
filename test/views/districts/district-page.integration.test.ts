// What a district's page says about its keys and sequences: a revoke stays on screen, on the row
// that was clicked, until the provider's confirmation has been seen; the header names the latest
// event's sequence, not only the activation order's high-water mark.
import { beforeEach, describe, expect, it } from "vitest";
import { getDistrict, RECENT_KEY_MINUTES, revokeStateOf } from "@/lib/views/districts/get-district";
import { revokeKey } from "@/lib/core/keys/revoke-key";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";
import { OWN, seedTwoDistricts, type Actors } from "../../support/dashboard-fixtures";

let actors: Actors;
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
});

const keyId = `key_${OWN}_2`;
const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);

describe("a district's page", () => {
  it("keeps a revoked key with the current keys, confirmed, for a while; then folds it into the inactive ones", async () => {
    await revokeKey({ actor: actors.districtAdmin, keyId });
    const awaiting = await getDistrict({ actor: actors.districtAdmin, tenantId: OWN });
    expect(awaiting.currentKeys.map((k) => [k.id, revokeStateOf(k)])[0]).toEqual([keyId, "awaiting_confirmation"]);

    expect((await deliver(keyEvent({ type: "key.revoked", tenantId: OWN, keyId, sequence: 4 }))).body.outcome).toBe(
      "applied",
    );
    const confirmed = await getDistrict({ actor: actors.districtAdmin, tenantId: OWN });
    const row = confirmed.currentKeys.find((k) => k.id === keyId)!;
    expect(row).toMatchObject({ status: "revoked", recent: true });
    expect(revokeStateOf(row)).toBe("confirmed");
    expect(row.revokeConfirmedAt).not.toBeNull();
    // The key rotated away at sequence 2 is recent too, listed after it; the inactive list skips both.
    expect(confirmed.inactiveKeys.map((k) => k.id)).not.toContain(keyId);
    expect(confirmed.inactiveCount).toBe(0);

    const later = await getDistrict({
      actor: actors.districtAdmin,
      tenantId: OWN,
      now: minutesFromNow(RECENT_KEY_MINUTES + 1),
    });
    expect(later.currentKeys).toEqual([]);
    expect(later.inactiveKeys.map((k) => k.id)).toContain(keyId);
    expect(later.inactiveByStatus.revoked).toBe(1);
  });

  it("lists the live key first, then possibly live keys, then the latest changes", async () => {
    await deliver(keyEvent({ type: "key.created", tenantId: OWN, keyId: "key_new", sequence: 5 }));
    const district = await getDistrict({ actor: actors.districtAdmin, tenantId: OWN });
    expect(district.currentKeys.map((k) => [k.id, k.status])).toEqual([
      ["key_new", "active"],
      [keyId, "superseded"],
      [`key_${OWN}_1`, "rotated"],
    ]);
  });

  it("names the latest event's sequence apart from the high-water mark of activations", async () => {
    // The seed's misrouted event (sequence 3) counts as received; a revoke applies without moving the mark.
    await deliver(keyEvent({ type: "key.revoked", tenantId: OWN, keyId, sequence: 5 }));
    const district = await getDistrict({ actor: actors.districtAdmin, tenantId: OWN });
    expect(district.highestSequenceSeen).toBe(5n);
    expect(district.highWaterMark).toBe(2n);
  });
});
