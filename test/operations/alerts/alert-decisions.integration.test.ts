// A person's decision on an alert (explained, resolved) lasts as long as the condition it was
// about (docs/decisions/0036): the sweeps, the gap job, a failing channel's next retry and the
// drift check never re-open it while the condition holds, the purge never deletes it while the
// condition holds, however old the rows are, and once the condition goes it is spent: the purge
// takes it after ALERT_RETENTION_DAYS and the condition coming back opens a new round.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveAlert } from "@/lib/operations/alerts/act-on-alert";
import { raiseGapAlerts } from "@/lib/operations/alerts/raise-gap-alerts";
import { sweepAlerts } from "@/lib/operations/worker/sweep-alerts";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { CHANNEL_FAILING_ALERT } from "@/lib/operations/notifications/channel-health";
import { createAlertChannel } from "@/lib/operations/notifications/manage-channels";
import { notifyAlerts } from "@/lib/operations/notifications/notify-alerts";
import { processOutbox } from "@/lib/operations/outbox/process-outbox";
import { createProviderClient, type ProviderClient } from "@/lib/operations/provider/client";
import { raiseAlert } from "@/lib/operations/alerts/upsert-alert";
import { runDriftCheck } from "@/lib/operations/drift/run-drift-check";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { ageRows } from "../../support/age-rows";
import { DAY_MS } from "../../support/ledger-rows";
import { startHttpReceiver, type HttpReceiver } from "../../support/receivers";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";

const support: Actor = { id: "u-support", email: "support@keyhook.test", name: null, role: "support", tenantId: null };
const admin: Actor = { id: "u-admin", email: "admin@keyhook.test", name: null, role: "platform_admin", tenantId: null };

const purge = (now = new Date()) => runPurge({ trigger: "manual", now, pauseMs: 0 });
const alertOf = (kind: string, subject: string) =>
  prisma.alert.findUniqueOrThrow({ where: { kind_subject: { kind, subject } } });
const explain = (id: bigint, note = "known: the district asked for it") =>
  resolveAlert({ actor: support, id: String(id), resolution: "explained", note });

let closers: (() => Promise<void>)[] = [];
beforeEach(resetDatabase);
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

describe("no sweep re-opens what a person closed while the condition holds", () => {
  it("a failing channel's next failed retry leaves its explained alert resolved; a success, then failures again, re-open it", async () => {
    let answer = 500;
    const receiver: HttpReceiver = await startHttpReceiver(() => answer);
    closers.push(receiver.close);
    const channel = await createAlertChannel({
      actor: admin,
      input: { kind: "slack", name: "on-call chat", target: receiver.url },
    });
    await raiseAlert({ kind: "purge_failed", subject: "retention/purge", now: new Date() });
    await notifyAlerts();
    const client = createProviderClient({ baseUrl: "http://127.0.0.1:9", apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 });
    let t = Date.now() + 1_000;
    /** One attempt of the channel's oldest waiting message (the clock jumps to when it is due). */
    const attempt = async () => {
      const due = await prisma.outboxMessage.findFirst({ where: { status: "pending" }, orderBy: { id: "asc" } });
      if (due) t = Math.max(t, due.nextAttemptAt.getTime());
      return processOutbox({ client, now: () => new Date(t), maxAttempts: 100 });
    };
    for (let i = 0; i < 5; i++) await attempt();
    const failing = await alertOf(CHANNEL_FAILING_ALERT, channel.id);
    expect(failing.state).toBe("open");

    await explain(failing.id, "the chat is being moved; pausing it tomorrow");
    await attempt(); // still failing, seconds later
    expect(await alertOf(CHANNEL_FAILING_ALERT, channel.id)).toMatchObject({ state: "resolved", count: 1 });

    // It got through once (the condition went), then failed again: a new round for a person.
    answer = 200;
    await raiseAlert({ kind: "superseded_key", subject: "api_keys/k", now: new Date(t) });
    await notifyAlerts({ now: new Date(t) });
    await attempt();
    expect((await alertOf(CHANNEL_FAILING_ALERT, channel.id)).conditionClearedAt).not.toBeNull();
    answer = 500;
    await raiseAlert({ kind: "superseded_key", subject: "api_keys/k2", now: new Date(t) });
    await notifyAlerts({ now: new Date(t) });
    for (let i = 0; i < 5; i++) await attempt();
    expect(await alertOf(CHANNEL_FAILING_ALERT, channel.id)).toMatchObject({ state: "open", count: 2 });
  });

  it("the gap job leaves an explained gap resolved while the gap stays open; its closing spends the decision", async () => {
    const tenant = "district-gappy";
    for (const sequence of [1, 2, 4])
      await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: `key_${sequence}`, sequence }));
    const later = new Date(Date.now() + 29 * 3_600_000);
    await raiseGapAlerts({ now: later, retryHorizonHours: 28 });
    const gap = await prisma.alert.findFirstOrThrow({ where: { kind: "sequence_gap" } });
    expect(gap.state).toBe("open");

    await explain(gap.id, "sequence 3 was a test event the provider never sends");
    await raiseGapAlerts({ now: new Date(later.getTime() + 60_000), retryHorizonHours: 28 });
    await sweepAlerts({ now: new Date(later.getTime() + 120_000) });
    expect(await prisma.alert.findUniqueOrThrow({ where: { id: gap.id } })).toMatchObject({
      state: "resolved",
      resolution: "explained",
      conditionClearedAt: null,
    });

    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_3", sequence: 3 }));
    await raiseGapAlerts({ now: new Date(later.getTime() + 180_000), retryHorizonHours: 28 });
    expect(await prisma.alert.findUniqueOrThrow({ where: { id: gap.id } })).toMatchObject({
      state: "resolved",
      resolution: "explained",
      conditionClearedAt: new Date(later.getTime() + 180_000),
    });
  });
});

describe("a decision outlives the purge while its condition holds", () => {
  let sim: SimulatorProcess;
  let provider: ProviderClient;
  beforeAll(async () => {
    sim = await startSimulator();
    provider = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
  });
  afterAll(async () => {
    await sim?.dispose();
  });

  it("an explained drift difference is still explained after two aged years, a purge and a later drift check", async () => {
    // Revoked at the provider, the webhook lost: live here, dead there.
    const tenant = `district-aged-${Date.now()}`;
    const keyId = (await provider.issueKey({ tenantId: tenant, scopes: [], idempotencyKey: `${tenant}-1` })).key.id;
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId, sequence: 1 }));
    await provider.revokeKey({ tenantId: tenant, keyId, idempotencyKey: `${tenant}-2` });
    await runDriftCheck({ provider, trigger: "test" });
    const drift = await alertOf("drift_local_active", `drift/${tenant}/${keyId}`);
    await explain(drift.id, "the district still uses it until Friday, agreed with the provider");

    for (const round of [1, 2]) {
      await ageRows(800);
      const run = await purge();
      expect(run.status).toBe("ran");
      await sweepAlerts();
      await runDriftCheck({ provider, trigger: "test" });
      const alerts = await prisma.alert.findMany({ where: { kind: { startsWith: "drift_" } } });
      expect({ round, alerts: alerts.map((a) => [a.id, a.state, a.resolution, a.count, a.note]) }).toEqual({
        round,
        alerts: [
          [drift.id, "resolved", "explained", 1, "the district still uses it until Friday, agreed with the provider"],
        ],
      });
    }

    // Our side ends the difference (the webhook finally arrives): the next check finds it gone,
    // the decision is spent and goes with the purge after the window.
    await deliver(keyEvent({ type: "key.revoked", tenantId: tenant, keyId, sequence: 2 }));
    await runDriftCheck({ provider, trigger: "test" });
    expect((await prisma.alert.findUniqueOrThrow({ where: { id: drift.id } })).conditionClearedAt).not.toBeNull();
    await purge(new Date(Date.now() + 89 * DAY_MS));
    expect(await prisma.alert.count({ where: { id: drift.id } })).toBe(1);
    await purge(new Date(Date.now() + 91 * DAY_MS));
    expect(await prisma.alert.count({ where: { id: drift.id } })).toBe(0);
  });

  it("a failed provider call whose alert a person resolved is not alerted again after two aged years and a purge", async () => {
    await prisma.outboxMessage.create({
      data: {
        tenantId: "district-x",
        kind: "key.revoke",
        payload: { tenantId: "district-x", keyId: "key_x" },
        idempotencyKey: "revoke:key_x",
        status: "failed",
        attempts: 12,
        lastError: "provider answered 500",
      },
    });
    await sweepAlerts();
    const failed = await prisma.alert.findFirstOrThrow({ where: { kind: "outbox_failed" } });
    await resolveAlert({
      actor: admin,
      id: String(failed.id),
      resolution: "resolved",
      note: "revoked at the provider's console",
    });

    for (const round of [1, 2]) {
      await ageRows(800);
      await purge();
      await sweepAlerts();
      const open = await prisma.alert.findMany({ where: { kind: "outbox_failed", state: { not: "resolved" } } });
      expect({ round, open }).toEqual({ round, open: [] });
    }
  });

  it("an explained superseded key stays explained after two aged years, a purge and the sweeps", async () => {
    const tenant = "district-super";
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_a", sequence: 1 }));
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_b", sequence: 2 }));
    await sweepAlerts();
    const superseded = await alertOf("superseded_key", "api_keys/key_a");
    await explain(superseded.id, "key_a is the district's test key");

    await ageRows(800);
    await purge();
    await sweepAlerts();
    expect(await prisma.alert.findMany({ where: { kind: "superseded_key" } })).toMatchObject([
      { id: superseded.id, state: "resolved", resolution: "explained", count: 1 },
    ]);
  });
});
