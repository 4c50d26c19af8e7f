// A local replay goes through the same ingest path as a delivery: an applied event answers
// "duplicate", a receipt with source "replay" is kept, and the action is audited.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db";
import { listDeliveries, mismatchOf } from "@/lib/deliveries/list-deliveries";
import type { DeliveryProvider } from "@/lib/deliveries/provider-for-dashboard";
import { replayStoredEvent } from "@/lib/deliveries/replay-stored-event";
import { HOOK_ID_SETTING } from "@/lib/provider/webhook-registration";
import { ProviderNetworkError } from "@/lib/provider/errors";
import { resetDatabase } from "../support/state";
import { OWN, seedTwoDistricts, type Actors } from "./fixtures";

let actors: Actors;
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
});

describe("replayStoredEvent", () => {
  it("replaying an applied event answers duplicate and changes nothing", async () => {
    const keysBefore = await prisma.apiKey.findMany({ where: { tenantId: OWN }, orderBy: { id: "asc" } });
    const result = await replayStoredEvent({ actor: actors.support, tenantId: OWN, eventId: `evt_${OWN}_1` });
    expect(result).toMatchObject({ status: 200, outcome: "duplicate", firstOutcome: "applied" });
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
    const provider: DeliveryProvider = {
      listDeliveries: async () => ({
        items: [
          attempt("d1", `evt_${OWN}_1`, false),
          attempt("d2", "evt_never_seen", true),
          attempt("d3", `evt_${OWN}_2`, true),
        ],
        nextCursor: null,
      }),
      redeliver: async () => ({ accepted: true as const }),
    };
    const view = await listDeliveries({ actor: actors.support, ...window(), provider });
    const byId = new Map(view.rows.map((r) => [r.eventId, r]));
    expect(byId.get(`evt_${OWN}_1`)?.mismatch).toBe("failed_but_applied");
    expect(byId.get("evt_never_seen")?.mismatch).toBe("delivered_without_receipt");
    expect(byId.get(`evt_${OWN}_2`)?.mismatch).toBeNull();
    expect(mismatchOf({ attempts: [], receipts: [] }, true)).toBeNull();
  });
});
