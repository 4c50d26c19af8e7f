// A key call asked for in the dashboard ends in the audit log with the outcome the provider gave
// (never the "requested" of the action, never "ok" for a call it refused), under the person who
// asked, and the outbox row keeps the answer as facts the district page reads. Against the real
// simulator process and the real issue/rotate services.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import type { Actor } from "@/lib/core/auth/actor";
import { issueKey } from "@/lib/core/keys/issue-key";
import { rotateKey } from "@/lib/core/keys/rotate-key";
import { processOutbox } from "@/lib/operations/outbox/process-outbox";
import { createProviderClient } from "@/lib/operations/provider/client";
import { getDistrict } from "@/lib/views/districts/get-district";
import { resetDatabase } from "../../support/state";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";
import { deliver, keyEvent } from "../../support/webhooks";

let sim: SimulatorProcess;
let admin: Actor;
const client = () => createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 });

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.dispose();
});
beforeEach(async () => {
  await resetDatabase();
  const row = await prisma.user.create({
    data: { email: "platform@keyhook.test", role: "platform_admin", name: "Pat Platform" },
  });
  admin = { id: row.id, email: row.email, name: row.name, role: "platform_admin", tenantId: null };
});

const keyAudit = (action: string) =>
  prisma.auditLog.findMany({
    where: { action },
    orderBy: { id: "asc" },
    select: { actorId: true, outcome: true, details: true },
  });

describe("the provider's answer to a key call", () => {
  it("a refused issue: the row keeps the refusal, the audit says refused, the district page says why", async () => {
    const tenantId = "district-pa-refused";
    // The provider holds an active key whose webhook has not reached us: here the district has none.
    await client().issueKey({ tenantId, scopes: ["rosters:read"], idempotencyKey: "elsewhere-1" });
    await prisma.tenant.create({ data: { id: tenantId } });

    const staged = await issueKey({ actor: admin, tenantId, scopes: ["grades:read"], requestToken: "tok_refused_1" });
    expect(await processOutbox({ client: client() })).toMatchObject({ failed: 1 });

    const row = await prisma.outboxMessage.findUniqueOrThrow({ where: { id: staged.outboxId } });
    expect(row).toMatchObject({ status: "failed", requestedById: admin.id });
    expect(row.result).toMatchObject({ status: 409, code: "active_key_exists", refused: true });
    expect(await keyAudit("key.issue")).toEqual([
      {
        actorId: admin.id,
        outcome: "requested",
        details: { scopes: ["grades:read"], outbox_id: String(staged.outboxId) },
      },
      {
        actorId: admin.id,
        outcome: "refused",
        details: expect.objectContaining({ answered_by: "provider", status: 409, code: "active_key_exists" }),
      },
    ]);
    const district = await getDistrict({ actor: admin, tenantId });
    expect(district.providerRequests).toMatchObject([
      {
        kind: "key.issue",
        state: "failed",
        refused: true,
        answer: { code: "active_key_exists" },
        requestedBy: admin.email,
      },
    ]);
  });

  it("an accepted rotation: the audit says accepted with the new key, the page follows it to its webhook", async () => {
    const tenantId = "district-pa-rotate";
    const issued = await client().issueKey({ tenantId, scopes: ["rosters:read"], idempotencyKey: "pa-rotate-1" });
    await deliver(keyEvent({ id: "evt_pa_1", type: "key.created", tenantId, keyId: issued.key.id, sequence: 1 }));

    const staged = await rotateKey({ actor: admin, keyId: issued.key.id });
    expect(await processOutbox({ client: client() })).toMatchObject({ sent: 1 });
    const row = await prisma.outboxMessage.findUniqueOrThrow({ where: { id: staged.outboxId } });
    const made = (row.result as { key_id: string }).key_id;
    expect(row.result).toMatchObject({ status: 201, previous_key_id: issued.key.id });
    expect((await keyAudit("key.rotate")).map((a) => a.outcome)).toEqual(["requested", "accepted"]);
    expect((await keyAudit("key.rotate"))[1]!.details).toMatchObject({ key_id: made, status: 201 });

    expect((await getDistrict({ actor: admin, tenantId })).providerRequests[0]).toMatchObject({
      state: "sent",
      madeKey: null,
    });
    await deliver(
      keyEvent({
        id: "evt_pa_2",
        type: "key.rotated",
        tenantId,
        keyId: made,
        previousKeyId: issued.key.id,
        sequence: 2,
      }),
    );
    expect((await getDistrict({ actor: admin, tenantId })).providerRequests[0]).toMatchObject({
      madeKey: { status: "active", arrivedStale: null },
    });
  });

  it("an issue whose key arrives stale says so, with both sequences", async () => {
    const tenantId = "district-pa-stale";
    // Our side is ahead of the provider's numbering: an activation at 5 reached us from elsewhere.
    await deliver(keyEvent({ id: "evt_pa_s1", type: "key.created", tenantId, keyId: "key_pa_hand", sequence: 5 }));
    await deliver(keyEvent({ id: "evt_pa_s2", type: "key.revoked", tenantId, keyId: "key_pa_hand", sequence: 6 }));
    const staged = await issueKey({ actor: admin, tenantId, scopes: ["rosters:read"], requestToken: "tok_stale_1" });
    expect(await processOutbox({ client: client() })).toMatchObject({ sent: 1 });
    const made = (
      (await prisma.outboxMessage.findUniqueOrThrow({ where: { id: staged.outboxId } })).result as {
        key_id: string;
      }
    ).key_id;
    // The provider numbers its first event of this district 1.
    await deliver(keyEvent({ id: "evt_pa_s3", type: "key.created", tenantId, keyId: made, sequence: 1 }));

    const district = await getDistrict({ actor: admin, tenantId });
    expect(district.providerRequests[0]).toMatchObject({
      madeKey: { status: "superseded", arrivedStale: { sequence: 1n, highWaterMark: 5n } },
    });
    expect(district.currentKeys.find((key) => key.id === made)).toMatchObject({ arrivedStale: { sequence: 1 } });
    // It is the provider's active key: another issue would be refused there, so it is refused here.
    await expect(
      issueKey({ actor: admin, tenantId, scopes: ["rosters:read"], requestToken: "tok_stale_2" }),
    ).rejects.toMatchObject({ code: "conflict", publicMessage: expect.stringContaining(`Revoke ${made} first`) });
  });
});

describe("what the provider would refuse is refused before it is asked", () => {
  it("no issue while the district has an active key, nor while another request for a key is on its way", async () => {
    const tenantId = "district-pa-guard";
    await deliver(keyEvent({ id: "evt_pa_g1", type: "key.created", tenantId, keyId: "key_pa_g1", sequence: 1 }));
    await expect(
      issueKey({ actor: admin, tenantId, scopes: ["rosters:read"], requestToken: "tok_guard_1" }),
    ).rejects.toMatchObject({
      code: "conflict",
      publicMessage: expect.stringContaining("Rotate key_pa_g1 to replace it"),
    });
    await deliver(keyEvent({ id: "evt_pa_g2", type: "key.revoked", tenantId, keyId: "key_pa_g1", sequence: 2 }));

    const first = await issueKey({ actor: admin, tenantId, scopes: ["rosters:read"], requestToken: "tok_guard_2" });
    // The same form again (a double click) is the same request, answered as such.
    expect(await issueKey({ actor: admin, tenantId, scopes: ["rosters:read"], requestToken: "tok_guard_2" })).toEqual({
      outboxId: first.outboxId,
      staged: false,
    });
    // Another form while it is on its way would ask the provider for a second key.
    await expect(
      issueKey({ actor: admin, tenantId, scopes: ["rosters:read"], requestToken: "tok_guard_3" }),
    ).rejects.toMatchObject({ code: "conflict", publicMessage: expect.stringContaining("already requested") });
    expect(await prisma.outboxMessage.count()).toBe(1);
  });
});
