// Revoke from the browser: local at once, provider call staged in the same transaction, audited,
// confirmed only by the provider's own key.revoked webhook, and never undone.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { getDistrict, revokeStateOf } from "@/lib/views/districts/get-district";
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

describe("revokeKey", () => {
  it("revokes, stages one outbox call and one audit entry; the provider's webhook confirms it", async () => {
    const result = await revokeKey({ actor: actors.districtAdmin, keyId });
    expect(result).toEqual({ keyId, tenantId: OWN, outcome: "revoked" });

    const key = await prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
    expect(key.status).toBe("revoked");
    expect(key.revokeRequestedAt).not.toBeNull();
    expect(key.revokeConfirmedAt).toBeNull();
    expect(revokeStateOf(key)).toBe("awaiting_confirmation");

    const outbox = await prisma.outboxMessage.findMany({ where: { tenantId: OWN } });
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({
      kind: "key.revoke",
      idempotencyKey: `revoke:${keyId}`,
      status: "pending",
      payload: { tenantId: OWN, keyId },
    });
    const audit = await prisma.auditLog.findMany({ where: { action: "key.revoke" } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorId: actors.districtAdmin.id, tenantId: OWN, target: keyId, outcome: "ok" });

    // The provider sends key.revoked (what the outbox worker's call causes): now confirmed.
    const answer = await deliver(keyEvent({ type: "key.revoked", tenantId: OWN, keyId, sequence: 10 }));
    expect(answer.body.outcome).toBe("applied");
    const district = await getDistrict({ actor: actors.districtAdmin, tenantId: OWN });
    expect(revokeStateOf(district.keys.find((k) => k.id === keyId)!)).toBe("confirmed");
  });

  it("a second revoke (double click, two admins) stages nothing more and reports already revoked", async () => {
    await revokeKey({ actor: actors.districtAdmin, keyId });
    const again = await revokeKey({ actor: actors.platformAdmin, keyId });
    expect(again.outcome).toBe("already_revoked");
    expect(await prisma.outboxMessage.count()).toBe(0 + 1);
    expect(await prisma.auditLog.count({ where: { action: "key.revoke" } })).toBe(2);
  });

  it("concurrent revokes of the same key stage exactly one provider call", async () => {
    const results = await Promise.all([
      revokeKey({ actor: actors.districtAdmin, keyId }),
      revokeKey({ actor: actors.platformAdmin, keyId }),
      revokeKey({ actor: actors.districtAdmin, keyId }),
    ]);
    expect(results.filter((r) => r.outcome === "revoked")).toHaveLength(1);
    expect(await prisma.outboxMessage.count()).toBe(1);
  });

  it("joins a caller's transaction: the revoke, its outbox row and its audit entry commit or roll back with it", async () => {
    const failure = new Error("the caller's next step failed");
    await expect(
      prisma.$transaction(async (tx) => {
        expect(await revokeKey({ actor: actors.districtAdmin, keyId }, tx)).toMatchObject({ outcome: "revoked" });
        expect((await tx.apiKey.findUniqueOrThrow({ where: { id: keyId } })).status).toBe("revoked");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } })).status).toBe("active");
    expect(await prisma.outboxMessage.count()).toBe(0);
    expect(await prisma.auditLog.count({ where: { action: "key.revoke" } })).toBe(0);

    await prisma.$transaction((tx) => revokeKey({ actor: actors.districtAdmin, keyId }, tx));
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } })).status).toBe("revoked");
    expect(await prisma.outboxMessage.count()).toBe(1);
  });

  it("a revoked key never becomes active again, whatever arrives later", async () => {
    await revokeKey({ actor: actors.districtAdmin, keyId });
    await deliver(keyEvent({ type: "key.created", tenantId: OWN, keyId, sequence: 50 }));
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } })).status).toBe("revoked");
  });

  it("the key view never carries key material", async () => {
    const district = await getDistrict({ actor: actors.districtAdmin, tenantId: OWN });
    for (const key of district.keys) {
      expect(Object.keys(key).sort()).toEqual(
        [
          "activatedAt",
          "arrivedStale",
          "createdAt",
          "id",
          "prefix",
          "recent",
          "revokeConfirmedAt",
          "revokeRequestedAt",
          "revokedAt",
          "rotatedAt",
          "scopes",
          "status",
          "supersededAt",
          "updatedAt",
          "version",
        ].sort(),
      );
    }
  });
});
