// The retry-readiness check end to end: on a healthy system every step passes for real
// (provider simulator → our endpoint → database, the worker registered the webhook); each step
// fails with its message when its condition is broken; the canary never shows to districts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { getDistrict } from "@/lib/views/districts/get-district";
import { listDistricts } from "@/lib/views/districts/list-districts";
import { listLedger } from "@/lib/views/ledger/list-ledger";
import { getOverview } from "@/lib/views/overview/get-overview";
import { CANARY_TENANT_ID } from "@/lib/core/tenancy/canary";
import { getReadinessSummary } from "@/lib/views/readiness/get-readiness";
import { runReadiness } from "@/lib/operations/readiness/run-readiness";
import type { ReadinessProvider } from "@/lib/operations/readiness/types";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { deliver, keyEvent } from "../../support/webhooks";
import { startRunningSystem, type RunningSystem } from "../../support/readiness-system";

let system: RunningSystem;
beforeAll(async () => {
  system = await startRunningSystem();
  await runPurge({ trigger: "cli" });
}, 60_000);
afterAll(async () => {
  await system?.stop();
});

const operator = { id: null, label: "test operator" };
const run = (overrides: Partial<Parameters<typeof runReadiness>[0]> = {}) =>
  runReadiness({
    actor: operator,
    trigger: "cli",
    provider: system.client,
    webhookUrl: system.webhookUrl,
    waitTimeoutMs: 15_000,
    ...overrides,
  });
const step = (result: Awaited<ReturnType<typeof runReadiness>>, id: string) => result.steps.find((s) => s.id === id)!;

describe("retry-readiness check", () => {
  it("passes on a healthy system: the provider's test event delivered twice, a forced 503, the history reconciled, retention", async () => {
    const result = await run();
    expect(result.steps.map((s) => [s.id, s.passed, s.passed ? null : `${s.summary} | ${s.fix}`])).toEqual([
      ["duplicate_delivery", true, null],
      ["forced_failure", true, null],
      ["delivery_history", true, null],
      ["retention", true, null],
      ["failover_durability", true, null],
      ["backups", true, null],
    ]);
    expect(result.passed).toBe(true);

    const duplicate = step(result, "duplicate_delivery");
    expect(duplicate.evidence.via).toBe("provider");
    const eventId = String(duplicate.evidence.event_id);
    expect(await prisma.processedEvent.count({ where: { tenantId: CANARY_TENANT_ID, eventId } })).toBe(1);
    const answers = await prisma.receipt.findMany({ where: { eventId }, orderBy: { receivedAt: "asc" } });
    expect(answers.filter((r) => r.status === 200).map((r) => [r.status, r.outcome])).toEqual([
      [200, "applied"],
      [200, "duplicate"],
    ]);
    // One transition: the canary's test key went from nothing to a revoked tombstone, once.
    expect(await prisma.apiKey.count({ where: { tenantId: CANARY_TENANT_ID, lastEventId: eventId } })).toBe(1);

    const failure = step(result, "forced_failure");
    expect(failure.evidence.answer).toMatchObject({ status: 503 });
    expect(await prisma.processedEvent.count({ where: { eventId: String(failure.evidence.event_id) } })).toBe(0);
    expect(await prisma.receipt.findFirst({ where: { eventId: String(failure.evidence.event_id) } })).toMatchObject({
      status: 503,
    });

    expect(step(result, "delivery_history").evidence.provider_attempts).toHaveLength(2);

    // Stored and audited.
    const stored = await prisma.readinessRun.findUniqueOrThrow({ where: { id: BigInt(result.id) } });
    expect(stored).toMatchObject({ passed: true, actor: "test operator", trigger: "cli" });
    expect(stored.finishedAt).not.toBeNull();
    expect((stored.steps as unknown[]).length).toBe(6);
    const audit = await prisma.auditLog.findFirstOrThrow({
      where: { action: "readiness.run", target: `readiness_runs/${result.id}` },
    });
    expect(audit.outcome).toBe("ok");
    const summary = await getReadinessSummary({ actor: staff("platform_admin") });
    expect(summary.lastRun?.passed).toBe(true);
    expect(summary.missing).toEqual([]);
  });

  it("fails the history step when the provider's history is missing an attempt", async () => {
    const losingOne: ReadinessProvider = {
      getWebhook: (input) => system.client.getWebhook(input),
      sendTestEvent: (input) => system.client.sendTestEvent(input),
      redeliver: (input) => system.client.redeliver(input),
      // The provider "forgets" the oldest attempt of the event.
      listDeliveries: async (input) => {
        const page = await system.client.listDeliveries(input);
        return { ...page, items: input.eventId && page.items.length > 1 ? page.items.slice(0, -1) : page.items };
      },
    };
    const result = await run({ provider: losingOne, waitTimeoutMs: 3_000 });
    const history = step(result, "delivery_history");
    expect(history.passed).toBe(false);
    expect(history.summary).toMatch(/^the provider shows 1 attempt\(s\) of evt_\w+, we received 2$/);
    expect(history.fix).toMatch(/missing attempts we received/);
    expect(result.passed).toBe(false);
    expect((await prisma.auditLog.findFirstOrThrow({ where: { target: `readiness_runs/${result.id}` } })).outcome).toBe(
      "failed",
    );
  });

  it("says the provider has not sent its test event yet, not that our URL is wrong, when it lists no attempt", async () => {
    // A provider that accepts the test event but never gets round to delivering it.
    const behind: ReadinessProvider = {
      getWebhook: (input) => system.client.getWebhook(input),
      sendTestEvent: async (input) => ({
        eventId: "evt_queued_at_the_provider",
        tenantId: input.tenantId,
        sequence: 1,
      }),
      redeliver: (input) => system.client.redeliver(input),
      listDeliveries: (input) => system.client.listDeliveries(input),
    };
    const duplicate = step(await run({ provider: behind, waitTimeoutMs: 1_000 }), "duplicate_delivery");
    expect(duplicate).toMatchObject({
      passed: false,
      summary: "the provider had not sent its test event 1000 ms after accepting it",
    });
    expect(duplicate.fix).toMatch(/^The provider lists no attempt yet: its delivery queue is behind/);
  });

  it("fails the retention step when the window is at or below the retry horizon + margin", async () => {
    // As an older deployment could have stored it (the form refuses this combination today).
    await prisma.setting.upsert({
      where: { key: "retention" },
      create: { key: "retention", value: { retentionDays: 2, retryHorizonHours: 28 } },
      update: { value: { retentionDays: 2, retryHorizonHours: 28 } },
    });
    try {
      const result = await run();
      const retention = step(result, "retention");
      expect(retention.passed).toBe(false);
      expect(retention.summary).toMatch(
        /retention window 2 days \(48 h\) must be longer than the provider retry horizon 28 h \+ margin 24 h = 52 h/,
      );
      expect(retention.fix).toMatch(/Raise the retention window above 52 h/);
      // Exactly at the boundary too (window = horizon + margin).
      await prisma.setting.update({
        where: { key: "retention" },
        data: { value: { retentionDays: 3, retryHorizonHours: 48 } },
      });
      expect(step(await run(), "retention").passed).toBe(false);
    } finally {
      await prisma.setting.delete({ where: { key: "retention" } });
    }
  });

  it("fails the retention step when no purge ran within its schedule", async () => {
    const result = await run({ now: () => new Date(Date.now() + 26 * 3_600_000) });
    const retention = step(result, "retention");
    expect(retention.passed).toBe(false);
    expect(retention.summary).toMatch(/the last completed purge was 2\d\.\d h ago/);
  });

  it("falls back to a locally signed event when no webhook is registered, and says the history cannot be reconciled", async () => {
    const result = await run({ hookId: null });
    expect(step(result, "duplicate_delivery")).toMatchObject({ passed: true });
    expect(step(result, "duplicate_delivery").evidence.via).toBe("local");
    expect(step(result, "delivery_history")).toMatchObject({ passed: false });
    expect(step(result, "delivery_history").fix).toMatch(/No webhook is registered/);
  });

  it("the canary never shows in district lists, counts or the ledger", async () => {
    await deliver(keyEvent({ type: "key.created", tenantId: "district-real", keyId: "key_real", sequence: 1 }));
    await prisma.user.create({
      data: { id: "u-da", email: "da@district-real.test", role: "district_admin", tenantId: "district-real" },
    });
    expect(await prisma.processedEvent.count({ where: { tenantId: CANARY_TENANT_ID } })).toBeGreaterThan(0);

    await prisma.processedEvent.deleteMany({ where: { tenantId: "district-warm-up" } });
    await prisma.receipt.deleteMany({ where: { tenantId: "district-warm-up" } });
    await prisma.apiKey.deleteMany({ where: { tenantId: "district-warm-up" } });
    await prisma.tenant.deleteMany({ where: { id: "district-warm-up" } });
    // Rows deleted behind the rollups' back (not by the purge, which subtracts them): start the
    // rollups over, so the Overview counts what is left (lib/operations/rollups/fold-rollups.ts).
    await prisma.$executeRawUnsafe(`TRUNCATE claim_hourly_counts, receipt_hourly_counts`);
    await prisma.$executeRawUnsafe(`UPDATE rollup_watermarks SET folded_id = 0, pending_id = NULL, pending_at = NULL`);
    for (const actor of [staff("platform_admin"), staff("support"), districtAdmin()]) {
      const districts = await listDistricts({ actor });
      expect(districts.map((d) => d.id)).not.toContain(CANARY_TENANT_ID);
      const ledger = await listLedger({ actor, filters: {} } as never);
      expect(JSON.stringify(ledger, (_k, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(
        CANARY_TENANT_ID,
      );
      const overview = await getOverview({ actor });
      expect(overview.ledgerRows).toBe(1);
      expect(overview.outcomesToday).toEqual({ applied: 1 });
      await expect(getDistrict({ actor, tenantId: CANARY_TENANT_ID })).rejects.toMatchObject({ code: "not_found" });
    }
  });
});

function staff(role: "platform_admin" | "support"): Actor {
  return { id: `u-${role}`, email: `${role}@keyhook.test`, name: null, role, tenantId: null };
}
function districtAdmin(): Actor {
  return { id: "u-da", email: "da@district-real.test", name: null, role: "district_admin", tenantId: "district-real" };
}
