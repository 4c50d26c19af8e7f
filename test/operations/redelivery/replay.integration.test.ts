// A local replay goes through the same ingest path as a delivery: an applied event answers
// "duplicate", a receipt with source "replay" is kept, and the action is audited.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { listDeliveries, mismatchOf } from "@/lib/views/deliveries/list-deliveries";
import type { DeliveryProvider } from "@/lib/operations/provider/provider-for-dashboard";
import { replayStoredEvent } from "@/lib/operations/redelivery/replay-stored-event";
import { HOOK_ID_SETTING } from "@/lib/operations/provider/webhook-registration";
import { ProviderNetworkError } from "@/lib/operations/provider/errors";
import { resetDatabase } from "../../support/state";
import { OWN, seedTwoDistricts, type Actors } from "../../support/dashboard-fixtures";
import { deliver, keyEvent } from "../../support/webhooks";

let actors: Actors;
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
});

describe("replayStoredEvent", () => {
  it("replaying an applied event answers duplicate and changes nothing", async () => {
    const keysBefore = await prisma.apiKey.findMany({ where: { tenantId: OWN }, orderBy: { id: "asc" } });
    const result = await replayStoredEvent({ actor: actors.support, tenantId: OWN, eventId: `evt_${OWN}_1` });
    expect(result).toMatchObject({ outcome: "duplicate", firstOutcome: "applied" });
    expect(result).not.toHaveProperty("status");
    expect(await prisma.apiKey.findMany({ where: { tenantId: OWN }, orderBy: { id: "asc" } })).toEqual(keysBefore);
    const receipts = await prisma.receipt.findMany({ where: { eventId: `evt_${OWN}_1` }, orderBy: { id: "asc" } });
    expect(receipts.map((r) => [r.source, r.outcome])).toEqual([
      ["provider", "applied"],
      ["replay", "duplicate"],
    ]);
    const audit = await prisma.auditLog.findFirstOrThrow({ where: { action: "delivery.replay" } });
    expect(audit).toMatchObject({ actorId: actors.support.id, target: `evt_${OWN}_1`, outcome: "duplicate" });
  });

  it("a purged payload cannot be replayed locally, and the page is told why", async () => {
    await prisma.$executeRaw`UPDATE processed_events SET payload = NULL WHERE event_id = ${`evt_${OWN}_1`}`;
    await expect(
      replayStoredEvent({ actor: actors.support, tenantId: OWN, eventId: `evt_${OWN}_1` }),
    ).rejects.toMatchObject({ code: "conflict" });
  });
});

describe("listDeliveries", () => {
  const window = () => ({ since: new Date(Date.now() - 3_600_000), until: new Date(Date.now() + 60_000) });

  it("shows our receipts and a provider-unreachable state when the provider is down", async () => {
    await prisma.setting.create({ data: { key: HOOK_ID_SETTING, value: "hook_test" } });
    const down: DeliveryProvider = {
      listDeliveries: async () => {
        throw new ProviderNetworkError("connect ECONNREFUSED");
      },
      redeliver: async () => ({ accepted: true as const }),
    };
    const view = await listDeliveries({ actor: actors.support, ...window(), provider: down });
    expect(view.provider.kind).toBe("unreachable");
    expect(view.rows.map((r) => r.eventId)).toContain(`evt_${OWN}_1`);
    expect(view.rows.find((r) => r.eventId === `evt_${OWN}_1`)?.replayable).toBe(true);
  });

  it("joins the provider's attempts to our receipts and flags both kinds of mismatch", async () => {
    await prisma.setting.create({ data: { key: HOOK_ID_SETTING, value: "hook_test" } });
    const at = new Date();
    const attempt = (id: string, eventId: string, succeeded: boolean) => ({
      id,
      eventId,
      tenantId: OWN,
      attempt: 1,
      trigger: "scheduled" as const,
      statusCode: succeeded ? 200 : null,
      durationMs: 10,
      responseExcerpt: null,
      error: succeeded ? null : "timeout",
      at,
      nextRetryAt: null,
      succeeded,
    });
    // An older activation: answered 200 stale, its answer lost on the way back.
    expect(
      (await deliver(keyEvent({ id: "evt_late", type: "key.created", tenantId: OWN, keyId: "key_late", sequence: 1 })))
        .body,
    ).toMatchObject({ outcome: "stale" });
    // Refused before its body was read: a signature made with a secret we do not hold.
    const refused = keyEvent({
      id: "evt_badsig",
      type: "key.created",
      tenantId: OWN,
      keyId: "key_badsig",
      sequence: 9,
    });
    expect(
      (await deliver(refused, { secrets: [`whsec_${Buffer.from("not-our-secret-at-all").toString("base64")}`] }))
        .status,
    ).toBe(401);
    const provider: DeliveryProvider = {
      listDeliveries: async () => ({
        items: [
          attempt("d1", `evt_${OWN}_1`, false),
          attempt("d2", "evt_never_seen", true),
          attempt("d3", `evt_${OWN}_2`, true),
          attempt("d4", "evt_late", false),
          attempt("d5", "evt_badsig", false),
        ],
        nextCursor: null,
      }),
      redeliver: async () => ({ accepted: true as const }),
    };
    const view = await listDeliveries({ actor: actors.support, ...window(), provider });
    const byId = new Map(view.rows.map((r) => [r.eventId, r]));
    expect(byId.get(`evt_${OWN}_1`)).toMatchObject({
      mismatch: "failed_but_answered",
      answered: { status: 200, outcome: "applied" },
    });
    // Not "applied": what we answered is what the page says.
    expect(byId.get("evt_late")).toMatchObject({
      mismatch: "failed_but_answered",
      answered: { status: 200, outcome: "stale" },
    });
    // A refused delivery is not in the ledger (no link to an empty one); its district comes from the provider.
    expect(byId.get("evt_badsig")).toMatchObject({ mismatch: null, ledgerId: null, tenantId: OWN });
    expect(byId.get("evt_badsig")?.receipts[0]).toMatchObject({ status: 401, signatureVerdict: "invalid" });
    expect(byId.get(`evt_${OWN}_1`)?.ledgerId).toMatch(/^\d+$/);
    expect(byId.get("evt_never_seen")?.mismatch).toBe("delivered_without_receipt");
    expect(byId.get(`evt_${OWN}_2`)?.mismatch).toBeNull();
    expect(mismatchOf({ attempts: [], receipts: [] }, true)).toBeNull();
    // A commit confirmed after we answered 503, on a primary lost before it could amend the
    // receipt: the provider saw 503 then a duplicate's 200; we hold two 200s.
    const later = (ms: number) => new Date(at.getTime() + ms);
    const receipt = (id: number, status: number, outcome: string, ms: number) => ({
      id: BigInt(id),
      receivedAt: later(ms),
      eventId: "evt_late",
      tenantId: OWN,
      webhookId: "evt_late",
      status,
      outcome,
      error: null,
      source: "provider",
      signatureVerdict: "valid",
    });
    const late = {
      attempts: [
        { ...attempt("d4", "evt_late", false), statusCode: 503, at: later(0) },
        { ...attempt("d5", "evt_late", true), at: later(5_000) },
      ],
      receipts: [receipt(1, 200, "applied", 10), receipt(2, 200, "duplicate", 5_010)],
    };
    expect(mismatchOf(late, true)).toBe("answer_not_received");
    // Its receipt amended to what we answered: no difference left.
    expect(mismatchOf({ ...late, receipts: [receipt(1, 503, "applied", 10), late.receipts[1]!] }, true)).toBeNull();
  });
});
