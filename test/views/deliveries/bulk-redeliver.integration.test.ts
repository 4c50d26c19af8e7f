// Bulk redelivery acts on exactly the rows the Deliveries list shows with its filters (window,
// district, event, status) that failed at the provider: the dry run names them, the run asks for
// each by its latest attempt, and a list with nothing failed sends nothing.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { bulkRedeliver } from "@/lib/views/deliveries/bulk-redeliver";
import { parseDeliveryFilters } from "@/lib/views/deliveries/delivery-filters";
import { listDeliveries } from "@/lib/views/deliveries/list-deliveries";
import type { DeliveryProvider } from "@/lib/operations/provider/provider-for-dashboard";
import type { ProviderDeliveryAttempt } from "@/lib/operations/provider/client";
import { HOOK_ID_SETTING } from "@/lib/operations/provider/webhook-registration";
import { resetDatabase } from "../../support/state";
import { OTHER, OWN, seedTwoDistricts, type Actors } from "../../support/dashboard-fixtures";

let actors: Actors;
let redelivered: string[];
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
  await prisma.setting.create({ data: { key: HOOK_ID_SETTING, value: "hook_test" } });
  redelivered = [];
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
const attempt = (id: string, eventId: string, tenantId: string, succeeded: boolean, at: Date) =>
  ({
    id,
    eventId,
    tenantId,
    attempt: 1,
    trigger: "scheduled",
    statusCode: succeeded ? 200 : 503,
    durationMs: 10,
    responseExcerpt: null,
    error: succeeded ? null : "503",
    at,
    nextRetryAt: null,
    succeeded,
  }) satisfies ProviderDeliveryAttempt;

// The provider's history: two events failed for good (one per district), one delivered, one
// failed at first and then delivered, one failed two days ago (outside the default window).
const history = [
  attempt("d1", "evt_fail_own", OWN, false, minutesAgo(30)),
  attempt("d2", "evt_fail_own", OWN, false, minutesAgo(20)),
  attempt("d3", "evt_fail_other", OTHER, false, minutesAgo(10)),
  attempt("d4", "evt_ok", OWN, true, minutesAgo(9)),
  attempt("d5", "evt_late", OTHER, false, minutesAgo(8)),
  attempt("d6", "evt_late", OTHER, true, minutesAgo(7)),
  attempt("d7", "evt_old", OWN, false, minutesAgo(48 * 60)),
];
const provider: DeliveryProvider = {
  listDeliveries: async (input) => ({
    items: history
      .filter((a) => (!input.eventId || a.eventId === input.eventId) && a.at >= input.since! && a.at < input.until!)
      .reverse(),
    nextCursor: null,
  }),
  redeliver: async (input) => {
    redelivered.push(input.deliveryId);
    return { accepted: true as const };
  },
};

const filtersFrom = (params: Record<string, string>) => parseDeliveryFilters(params).filters;

describe("bulk redelivery of the Deliveries list", () => {
  it("the dry run names exactly the failed rows the filters show, and the run asks for each by its latest attempt", async () => {
    const all = filtersFrom({});
    const dry = await bulkRedeliver({ actor: actors.support, filters: all, dryRun: true, provider });
    expect(dry.rows.map((r) => [r.eventId, r.tenantId, r.deliveryId])).toEqual([
      ["evt_fail_other", OTHER, "d3"],
      ["evt_fail_own", OWN, "d2"],
    ]);
    expect(redelivered).toEqual([]);
    // The list's own count is the same set.
    const view = await listDeliveries({ actor: actors.support, ...all, provider });
    expect(view.redeliverable).toEqual(dry.rows);

    const byDistrict = await bulkRedeliver({
      actor: actors.support,
      filters: filtersFrom({ tenant: OWN, status: "failed" }),
      dryRun: false,
      provider,
    });
    expect(byDistrict.rows.map((r) => r.eventId)).toEqual(["evt_fail_own"]);
    expect(redelivered).toEqual(["d2"]);
    const audit = await prisma.auditLog.findFirstOrThrow({ where: { action: "delivery.bulk_replay" } });
    expect(audit).toMatchObject({ outcome: "requested", tenantId: OWN });
    expect(audit.details).toMatchObject({ requested: 1, eventIds: ["evt_fail_own"], filters: { tenant: OWN } });

    const byEvent = await bulkRedeliver({
      actor: actors.support,
      filters: filtersFrom({ event: "evt_fail_other" }),
      dryRun: true,
      provider,
    });
    expect(byEvent.rows.map((r) => r.eventId)).toEqual(["evt_fail_other"]);

    const wider = await bulkRedeliver({
      actor: actors.support,
      filters: filtersFrom({
        from: minutesAgo(3 * 24 * 60)
          .toISOString()
          .slice(0, 19),
      }),
      dryRun: true,
      provider,
    });
    expect(wider.rows.map((r) => r.eventId)).toContain("evt_old");
  });

  it("a list with nothing failed sends nothing and records nothing", async () => {
    const result = await bulkRedeliver({
      actor: actors.support,
      filters: filtersFrom({ event: "evt_ok" }),
      dryRun: false,
      provider,
    });
    expect(result.rows).toEqual([]);
    expect(redelivered).toEqual([]);
    expect(await prisma.auditLog.count({ where: { action: "delivery.bulk_replay" } })).toBe(0);
  });

  it("says so when no webhook is registered, and sends nothing", async () => {
    await prisma.setting.deleteMany({ where: { key: HOOK_ID_SETTING } });
    await expect(
      bulkRedeliver({ actor: actors.support, filters: filtersFrom({}), dryRun: true, provider }),
    ).rejects.toMatchObject({ code: "unavailable", publicMessage: "No webhook is registered with the provider yet." });
  });
});
