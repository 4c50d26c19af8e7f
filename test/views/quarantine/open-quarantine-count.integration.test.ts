// The open quarantine's count stays cheap however many events a misrouting sender quarantines:
// exact up to 10,000, PostgreSQL's estimate past it, and every place that shows it says which.
import { beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { CANARY_TENANT_ID } from "@/lib/core/tenancy/canary";
import { getOverview } from "@/lib/views/overview/get-overview";
import { listQuarantine } from "@/lib/views/quarantine/list-quarantine";
import { scrapeMetrics } from "../../support/metrics";
import { resetDatabase } from "../../support/state";

const staff: Actor = { id: "u_staff", email: "s@keyhook.test", name: null, role: "platform_admin", tenantId: null };
const districtAdmin: Actor = { ...staff, id: "u_da", role: "district_admin", tenantId: "district-storm" };

beforeEach(resetDatabase);

async function quarantine(count: number, tenantId = "district-storm") {
  await prisma.$executeRaw`
    INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, reason, received_at)
    SELECT ${tenantId}, 'evt_storm_' || ${tenantId} || '_' || g, 'key.revoked', 'key_other', g, 'quarantined',
           'key key_other belongs to another tenant', now() - g * interval '1 second'
    FROM generate_series(1, ${count}::int) g`;
}

describe("the readiness canary's quarantine", () => {
  it("is in neither the Quarantine page's list nor its count, nor the Overview's or the metrics'", async () => {
    await quarantine(3);
    await quarantine(2, CANARY_TENANT_ID);

    const page = await listQuarantine({ actor: staff });
    expect(page.events.map((event) => event.tenantId)).not.toContain(CANARY_TENANT_ID);
    expect(page.events).toHaveLength(3);
    expect(page.eventsTotal).toEqual({ exact: true, value: 3 });
    expect((await getOverview({ actor: staff })).quarantineOpen).toEqual({ exact: true, value: 3 });
    expect(await scrapeMetrics()).toMatch(/^keyhook_quarantine_open 3$/m);
  });
});

describe("the open quarantine's count", () => {
  it("is exact up to 10,000 on the Overview, the Quarantine page and the metrics", async () => {
    await quarantine(10_000);

    expect((await getOverview({ actor: staff })).quarantineOpen).toEqual({ exact: true, value: 10_000 });
    expect((await getOverview({ actor: districtAdmin })).quarantineOpen).toEqual({ exact: true, value: 10_000 });
    expect((await listQuarantine({ actor: staff })).eventsTotal).toEqual({ exact: true, value: 10_000 });
    const text = await scrapeMetrics();
    expect(text).toMatch(/^keyhook_quarantine_open 10000$/m);
    expect(text).toMatch(/^keyhook_quarantine_open_estimated 0$/m);
  });

  it("past 10,000 is PostgreSQL's estimate for the whole ledger, and 'more than 10,000' for one district", async () => {
    await quarantine(12_000);
    await quarantine(3_000, "district-other");
    await prisma.$executeRaw`ANALYZE processed_events`;

    const overview = await getOverview({ actor: staff });
    expect(overview.quarantineOpen).toMatchObject({ exact: false, atLeast: 10_001 });
    const estimate = overview.quarantineOpen.exact ? 0 : overview.quarantineOpen.estimate!;
    expect(estimate).toBeGreaterThan(15_000 * 0.8);
    expect(estimate).toBeLessThan(15_000 * 1.2);
    expect((await listQuarantine({ actor: staff })).eventsTotal).toMatchObject({ exact: false, estimate });
    // No per-district estimate exists: the district's own count says only that it is past the bound.
    expect((await getOverview({ actor: districtAdmin })).quarantineOpen).toEqual({
      exact: false,
      atLeast: 10_001,
      estimate: null,
    });
    expect((await getOverview({ actor: { ...districtAdmin, tenantId: "district-other" } })).quarantineOpen).toEqual({
      exact: true,
      value: 3_000,
    });
    const text = await scrapeMetrics();
    expect(text).toMatch(new RegExp(`^keyhook_quarantine_open ${estimate}$`, "m"));
    expect(text).toMatch(/^keyhook_quarantine_open_estimated 1$/m);
  });

  it("before PostgreSQL has measured the storm, says 'more than 10,000' rather than a stale figure", async () => {
    // The index's size as last measured (none, or the empty template's) is no estimate of 10,001;
    // autovacuum must not measure it in between (this file has its own database).
    await prisma.$executeRaw`ALTER TABLE processed_events SET (autovacuum_enabled = false)`;
    await quarantine(10_001);
    expect((await getOverview({ actor: staff })).quarantineOpen).toEqual({
      exact: false,
      atLeast: 10_001,
      estimate: null,
    });
  });
});
