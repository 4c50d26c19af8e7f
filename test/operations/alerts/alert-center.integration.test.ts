// The alert center's data: deduplication by subject (1,000 quarantined events from one misrouted
// key → one alert, count 1,000), the condition sweeps raising and auto-resolving, district scoping
// (and the canary), acknowledge/resolve audited.
import { beforeEach, describe, expect, it } from "vitest";
import { acknowledgeAlert, resolveAlert } from "@/lib/operations/alerts/act-on-alert";
import {
  sweepDeliveryFailureRate,
  sweepProviderUnreachable,
  sweepPurgeFailures,
} from "@/lib/operations/alerts/condition-sweeps";
import { sweepFailedOutbox } from "@/lib/operations/alerts/failed-outbox";
import { getAlert } from "@/lib/views/alerts/get-alert";
import { countOpenAlerts, listAlerts } from "@/lib/views/alerts/list-alerts";
import { sweepAlerts } from "@/lib/operations/worker/sweep-alerts";
import { raiseAlert } from "@/lib/operations/alerts/upsert-alert";
import { prisma } from "@/lib/core/db/client";
import { isAppError } from "@/lib/core/errors";
import { revokeKey } from "@/lib/core/keys/revoke-key";
import { CANARY_TENANT_ID } from "@/lib/core/tenancy/canary";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent, signedRequest } from "../../support/webhooks";
import { handleKeyWebhook } from "@/http/webhook/receive-key-webhook";
import { OTHER, OWN, seedTwoDistricts, type Actors } from "../../support/dashboard-fixtures";

let actors: Actors;
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
});

const notFound = (e: unknown) => isAppError(e, "not_found");

/** Runs the sweep until its two-step watermark has folded everything committed before the call. */
async function sweepTwice() {
  await sweepAlerts();
  return sweepAlerts();
}

async function inParallel<T>(items: T[], width: number, run: (item: T) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

describe("alert dedupe", () => {
  it("1,000 quarantined events from one misrouted key are ONE alert with count 1,000", async () => {
    const misrouted = `key_${OTHER}_2`; // the other district's key, named in OWN's events
    const sequences = Array.from({ length: 1000 }, (_, i) => 100 + i);
    await inParallel(sequences, 8, async (sequence) => {
      const answer = await deliver(keyEvent({ type: "key.revoked", tenantId: OWN, keyId: misrouted, sequence }));
      expect(answer.body.outcome).toBe("quarantined");
    });
    await sweepTwice();
    const subject = `quarantine/${OWN}/${misrouted}`;
    const alert = await prisma.alert.findUniqueOrThrow({ where: { kind_subject: { kind: "quarantine", subject } } });
    // The fixture's own misrouted event names the same key in the same district: 1,001.
    expect(alert).toMatchObject({ tenantId: OWN, state: "open", count: 1001 });
    expect(await prisma.alert.count({ where: { kind: "quarantine", tenantId: OWN } })).toBe(1);

    // Sweeping again counts nothing twice; five more events add five.
    await sweepTwice();
    expect((await prisma.alert.findUniqueOrThrow({ where: { id: alert.id } })).count).toBe(1001);
    for (const sequence of [2000, 2001, 2002, 2003, 2004])
      await deliver(keyEvent({ type: "key.revoked", tenantId: OWN, keyId: misrouted, sequence }));
    await sweepTwice();
    expect((await prisma.alert.findUniqueOrThrow({ where: { id: alert.id } })).count).toBe(1006);

    // Every event of the cause resolved on the Quarantine page: the alert resolves by itself.
    await prisma.processedEvent.updateMany({
      where: { tenantId: OWN, outcome: "quarantined" },
      data: { resolvedAt: new Date(), resolvedBy: "test", resolution: "dismissed" },
    });
    await sweepAlerts();
    expect(await prisma.alert.findUniqueOrThrow({ where: { id: alert.id } })).toMatchObject({
      state: "resolved",
      resolution: "condition_cleared",
      resolvedBy: "alert sweep",
    });
  });
});

describe("condition sweeps", () => {
  it("a superseded key raises an alert until it is revoked", async () => {
    // OWN's key 1 was rotated; a created event for a new key while key 2 is active supersedes key 2.
    await deliver(keyEvent({ type: "key.created", tenantId: OWN, keyId: "key_new", sequence: 4 }));
    await sweepAlerts();
    const alert = await prisma.alert.findUniqueOrThrow({
      where: { kind_subject: { kind: "superseded_key", subject: `api_keys/key_${OWN}_2` } },
    });
    expect(alert).toMatchObject({ state: "open", tenantId: OWN });
    // Still true on the next sweep: same row, same count, last seen moves.
    await sweepAlerts();
    expect(await prisma.alert.findUniqueOrThrow({ where: { id: alert.id } })).toMatchObject({
      state: "open",
      count: 1,
    });
    await revokeKey({ actor: actors.districtAdmin, keyId: `key_${OWN}_2` });
    await sweepAlerts();
    expect((await prisma.alert.findUniqueOrThrow({ where: { id: alert.id } })).state).toBe("resolved");
  });

  it("failed outbox rows, failed purges, an unreachable provider and a high failure rate each raise one alert and clear", async () => {
    const now = new Date();
    const row = await prisma.outboxMessage.create({
      data: {
        tenantId: OWN,
        kind: "key.revoke",
        payload: { tenantId: OWN, keyId: "k" },
        idempotencyKey: "t-1",
        status: "failed",
        attempts: 12,
        lastError: "provider answered 500",
      },
    });
    expect(await sweepFailedOutbox(now, prisma)).toEqual({ raised: 1, resolved: 0 });
    expect(await sweepFailedOutbox(now, prisma)).toEqual({ raised: 0, resolved: 0 });
    await prisma.outboxMessage.update({ where: { id: row.id }, data: { status: "sent" } });
    expect(await sweepFailedOutbox(now, prisma)).toEqual({ raised: 0, resolved: 1 });

    await prisma.purgeRun.create({ data: { trigger: "schedule", status: "failed", error: "lock timeout" } });
    expect(await sweepPurgeFailures(now, prisma)).toEqual({ raised: 1, resolved: 0 });
    await prisma.purgeRun.create({
      data: { trigger: "schedule", status: "ran", startedAt: new Date(Date.now() + 1000) },
    });
    expect(await sweepPurgeFailures(now, prisma)).toEqual({ raised: 0, resolved: 1 });

    // Provider calls without an answer for 20 minutes (threshold 15), none answered since.
    const message = await prisma.outboxMessage.create({
      data: { tenantId: OWN, kind: "key.revoke", payload: {}, idempotencyKey: "t-2" },
    });
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    await prisma.outboxAttempt.create({ data: { outboxId: message.id, at: minutesAgo(30), status: 200 } });
    for (const m of [20, 10, 1])
      await prisma.outboxAttempt.create({ data: { outboxId: message.id, at: minutesAgo(m), error: "ECONNREFUSED" } });
    expect(await sweepProviderUnreachable(now, prisma, 15)).toEqual({ raised: 1, resolved: 0 });
    expect(await sweepProviderUnreachable(now, prisma, 25)).toEqual({ raised: 0, resolved: 1 }); // 20 min < 25
    expect(await sweepProviderUnreachable(now, prisma, 15)).toEqual({ raised: 1, resolved: 0 }); // back: re-opened
    const unreachable = await prisma.alert.findFirstOrThrow({ where: { kind: "provider_unreachable" } });
    expect(unreachable).toMatchObject({ count: 2, tenantId: null, state: "open" });
    await prisma.outboxAttempt.create({ data: { outboxId: message.id, at: now, status: 200 } });
    expect(await sweepProviderUnreachable(now, prisma, 15)).toEqual({ raised: 0, resolved: 1 });

    // 30 deliveries with a bad signature: 30 of 36 answers (the fixture's 6 were 200) not 2xx.
    for (let i = 0; i < 30; i++) {
      const request = signedRequest(
        keyEvent({ type: "key.created", tenantId: OWN, keyId: `k${i}`, sequence: 50 + i }),
        {
          secrets: ["whsec_d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldA=="],
        },
      );
      expect((await handleKeyWebhook(request)).status).toBe(401);
    }
    const settings = { percent: 20, windowMinutes: 60, minDeliveries: 20 };
    const later = new Date(Date.now() + 1000);
    expect(await sweepDeliveryFailureRate(later, prisma, settings)).toEqual({ raised: 1, resolved: 0 });
    const rate = await prisma.alert.findFirstOrThrow({ where: { kind: "delivery_failure_rate" } });
    expect(rate.details).toMatchObject({ deliveries: 36, failed: 30 });
    expect(await sweepDeliveryFailureRate(later, prisma, { ...settings, percent: 90 })).toEqual({
      raised: 0,
      resolved: 1,
    });
  });
});

describe("alert center scoping and actions", () => {
  async function seedAlerts() {
    const now = new Date();
    await raiseAlert({
      kind: "superseded_key",
      subject: `api_keys/${OWN}-x`,
      tenantId: OWN,
      now,
      details: { key_id: `${OWN}-x` },
    });
    await raiseAlert({ kind: "superseded_key", subject: `api_keys/${OTHER}-x`, tenantId: OTHER, now });
    await raiseAlert({
      kind: "quarantine",
      subject: `quarantine/${CANARY_TENANT_ID}/k`,
      tenantId: CANARY_TENANT_ID,
      now,
    });
    await raiseAlert({ kind: "provider_unreachable", subject: "provider/api", tenantId: null, now });
    return prisma.alert.findMany({ orderBy: { id: "asc" } });
  }

  it("district admins see their district's alerts only (never the canary's or platform-wide ones); staff all but the canary's", async () => {
    const [own, other, canary] = await seedAlerts();
    const subjects = async (actor: Actors[keyof Actors]) =>
      (await listAlerts({ actor })).alerts.map((a) => a.subject).sort();
    expect(await subjects(actors.districtAdmin)).toEqual([own!.subject]);
    expect(await subjects(actors.otherDistrictAdmin)).toEqual([other!.subject]);
    expect(await subjects(actors.support)).toHaveLength(3);
    expect(await subjects(actors.support)).not.toContain(canary!.subject);
    expect(await subjects(actors.platformAdmin)).toHaveLength(3);
    expect(await countOpenAlerts({ actor: actors.districtAdmin })).toBe(1);
    // Even an account pinned to the canary district sees nothing of it.
    const canaryAdmin = { ...actors.districtAdmin, tenantId: CANARY_TENANT_ID };
    await expect(listAlerts({ actor: canaryAdmin })).rejects.toSatisfy(notFound);
    // Another district's alert answers like a missing one, for reading and for acting.
    await expect(getAlert({ actor: actors.districtAdmin, id: String(other!.id) })).rejects.toSatisfy(notFound);
    await expect(getAlert({ actor: actors.districtAdmin, id: String(canary!.id) })).rejects.toSatisfy(notFound);
    await expect(acknowledgeAlert({ actor: actors.districtAdmin, id: String(other!.id) })).rejects.toSatisfy(notFound);
    await expect(
      resolveAlert({ actor: actors.districtAdmin, id: String(other!.id), resolution: "resolved" }),
    ).rejects.toSatisfy(notFound);
    // Filters: by state and by kind; a bad filter is a clear error.
    expect((await listAlerts({ actor: actors.support, kind: "provider_unreachable" })).alerts).toHaveLength(1);
    expect((await listAlerts({ actor: actors.support, state: "resolved" })).alerts).toHaveLength(0);
    await expect(listAlerts({ actor: actors.support, state: "nope" })).rejects.toSatisfy((e) =>
      isAppError(e, "bad_request"),
    );
  });

  it("acknowledge and resolve record who and when, audited; a resolved alert re-opens when raised with a change", async () => {
    const [own] = await seedAlerts();
    const id = String(own!.id);
    expect(await acknowledgeAlert({ actor: actors.districtAdmin, id })).toMatchObject({ outcome: "done" });
    expect(await acknowledgeAlert({ actor: actors.support, id })).toMatchObject({ outcome: "already" });
    let row = await prisma.alert.findUniqueOrThrow({ where: { id: own!.id } });
    expect(row).toMatchObject({ state: "acknowledged", acknowledgedBy: "admin@own.test (district_admin)" });
    expect(row.acknowledgedAt).toBeInstanceOf(Date);

    // A drift-only action on another kind is refused; a plain resolve is fine.
    await expect(resolveAlert({ actor: actors.support, id, resolution: "revoke_requested" })).rejects.toSatisfy((e) =>
      isAppError(e, "bad_request"),
    );
    await resolveAlert({ actor: actors.support, id, resolution: "resolved", note: "revoked at the provider by phone" });
    row = await prisma.alert.findUniqueOrThrow({ where: { id: own!.id } });
    expect(row).toMatchObject({
      state: "resolved",
      resolvedBy: "support@keyhook.test (support)",
      resolution: "resolved",
      note: "revoked at the provider by phone",
    });
    const audit = await prisma.auditLog.findMany({ where: { target: `alerts/${id}` }, orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.action, a.outcome, a.tenantId])).toEqual([
      ["alert.acknowledge", "ok", OWN],
      ["alert.acknowledge", "already_acknowledged", OWN],
      ["alert.resolve", "ok", OWN],
    ]);

    // Raised again while the same condition holds: the person's decision stands.
    expect(await raiseAlert({ kind: own!.kind, subject: own!.subject, tenantId: OWN, now: new Date() })).toBe("held");
    expect(await prisma.alert.findUniqueOrThrow({ where: { id: own!.id } })).toMatchObject({ state: "resolved" });
    // Raised with a change (new events, a different difference): re-opened for a person.
    await raiseAlert({ kind: own!.kind, subject: own!.subject, tenantId: OWN, now: new Date(), changed: true });
    row = await prisma.alert.findUniqueOrThrow({ where: { id: own!.id } });
    expect(row).toMatchObject({ state: "open", count: 2, resolvedBy: null, acknowledgedBy: null, note: null });
  });
});
