// Alert notifications end to end against receivers this test starts (node:http for the Slack and
// JSON webhooks, smtp-server for email): the notifier stages outbox rows, the outbox worker sends
// them. Time is the outbox's controllable clock: backoff is stepped through, never waited for.
import { EventEmitter } from "node:events";
import type { Runner } from "graphile-worker";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { raiseAlert, resolveAlerts } from "@/lib/operations/alerts/upsert-alert";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { CHANNEL_FAILING_ALERT } from "@/lib/operations/notifications/channel-health";
import { listAlertChannels } from "@/lib/views/settings/list-channels";
import { createAlertChannel } from "@/lib/operations/notifications/manage-channels";
import { notifyAlerts } from "@/lib/operations/notifications/notify-alerts";
import type { BackgroundJob } from "@/lib/operations/worker/background-jobs";
import { kickStartupJobs, startJobWorker } from "@/lib/operations/worker/start-job-worker";
import { drainOutbox } from "@/lib/operations/outbox/drain-outbox";
import { processOutbox } from "@/lib/operations/outbox/process-outbox";
import { createProviderClient } from "@/lib/operations/provider/client";
import { resetDatabase } from "../../support/state";
import {
  deadUrl,
  startHttpReceiver,
  startSmtpReceiver,
  type HttpReceiver,
  type SmtpReceiver,
} from "../../support/receivers";

const admin: Actor = { id: "admin-1", email: "admin@keyhook.test", name: null, role: "platform_admin", tenantId: null };
// The notify.* rows never reach the provider; processOutbox still wants a client for key.* rows.
const client = createProviderClient({ baseUrl: "http://127.0.0.1:9", apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 });
let closers: (() => Promise<void>)[] = [];
let runners: Runner[] = [];

beforeEach(resetDatabase);
afterEach(async () => {
  await Promise.all(runners.map((runner) => runner.stop()));
  runners = [];
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

async function http(answer?: (n: number) => number): Promise<HttpReceiver> {
  const receiver = await startHttpReceiver(answer);
  closers.push(receiver.close);
  return receiver;
}

async function smtp(): Promise<SmtpReceiver> {
  const receiver = await startSmtpReceiver();
  closers.push(receiver.close);
  return receiver;
}

const outboxOf = (channelId: string) =>
  prisma.outboxMessage.findMany({
    where: { payload: { path: ["channelId"], equals: channelId } },
    orderBy: { id: "asc" },
  });

describe("alert notifications", () => {
  it("one message per new alert per channel with two workers at once; the JSON webhook verifies with its secret", async () => {
    const slackReceiver = await http();
    const jsonReceiver = await http();
    const mail = await smtp();
    const slack = await createAlertChannel({
      actor: admin,
      input: { kind: "slack", name: "chat", target: slackReceiver.url },
    });
    const json = await createAlertChannel({
      actor: admin,
      input: { kind: "webhook", name: "pager", target: jsonReceiver.url },
    });
    const email = await createAlertChannel({
      actor: admin,
      input: {
        kind: "email",
        name: "ops mail",
        target: "ops@example.org, oncall@example.org",
        smtpUrl: mail.url,
        fromAddress: "keyhook@example.org",
      },
    });
    expect(json.secret).toMatch(/^whsec_/);

    await raiseAlert({
      kind: "quarantine",
      subject: "key_misrouted",
      tenantId: "district-4417",
      now: new Date(),
      details: { reason: "wrong district" },
    });
    // Two workers' notifiers, then two workers' outbox drains, at the same moment.
    const staged = await Promise.all([notifyAlerts(), notifyAlerts()]);
    expect(staged[0]!.staged + staged[1]!.staged).toBe(3);
    const now = () => new Date(Date.now() + 1_000);
    const sent = await Promise.all([processOutbox({ client, now }), processOutbox({ client, now })]);
    expect(sent[0]!.sent + sent[1]!.sent).toBe(3);
    // Again, later: nothing new to say, nothing sent.
    expect((await notifyAlerts()).staged).toBe(0);
    expect((await processOutbox({ client, now })).claimed).toBe(0);

    expect(slackReceiver.requests).toHaveLength(1);
    const text = (JSON.parse(slackReceiver.requests[0]!.body) as { text: string }).text;
    expect(text).toContain("New alert — quarantine: key_misrouted (district-4417)");

    expect(jsonReceiver.requests).toHaveLength(1);
    const delivery = jsonReceiver.requests[0]!;
    const verified = new Webhook(json.secret!).verify(delivery.body, {
      "webhook-id": String(delivery.headers["webhook-id"]),
      "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
      "webhook-signature": String(delivery.headers["webhook-signature"]),
    }) as { type: string; data: { alert: { kind: string; subject: string; count: number } } };
    expect(verified.type).toBe("alert.opened");
    expect(verified.data.alert).toMatchObject({ kind: "quarantine", subject: "key_misrouted", count: 1 });
    expect(() =>
      new Webhook(`whsec_${Buffer.from("another-secret-entirely").toString("base64")}`).verify(delivery.body, {
        "webhook-id": String(delivery.headers["webhook-id"]),
        "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
        "webhook-signature": String(delivery.headers["webhook-signature"]),
      }),
    ).toThrow();

    expect(mail.messages).toHaveLength(1);
    expect(mail.messages[0]!.to).toEqual(["ops@example.org", "oncall@example.org"]);
    expect(mail.messages[0]!.raw).toMatch(/^Subject: =\?UTF-8\?Q\?=5BKeyhook=5D_New_alert/m); // "[Keyhook] New alert — …"
    expect(mail.messages[0]!.raw).toContain("quarantine: key_misrouted (district-4417)");
    expect(mail.messages[0]!.raw).toMatch(/^Message-ID: <[0-9a-f]{32}@keyhook\.alerts>/m);
    for (const channel of [slack, json, email]) expect(await outboxOf(channel.id)).toHaveLength(1);
  });

  it("two real workers (queue, notifier chain, outbox drain) deliver one message for one new alert", async () => {
    let arrived: () => void = () => {};
    const delivered = new Promise<void>((resolve) => (arrived = resolve));
    const receiver = await http(() => {
      arrived();
      return 200;
    });
    await createAlertChannel({ actor: admin, input: { kind: "slack", name: "chat", target: receiver.url } });
    const jobs: BackgroundJob[] = [
      { task: "outbox.drain", run: () => drainOutbox({ client }).then(() => undefined) },
      { task: "alerts.notify", run: () => notifyAlerts().then(() => undefined), everyMs: 50 },
    ];
    const emitters = [new EventEmitter(), new EventEmitter()];
    let notifierRuns = 0;
    let afterDelivery: () => void = () => {};
    const settled = new Promise<void>((resolve) => (afterDelivery = resolve));
    let deliveredAt: number | null = null;
    for (const events of emitters) {
      events.on("job:complete", ({ job }: { job: { task_identifier: string } }) => {
        if (job.task_identifier !== "alerts.notify") return;
        notifierRuns++;
        // Ten more notifier runs, on either worker, after the message arrived: none may send again.
        if (deliveredAt !== null && notifierRuns >= deliveredAt + 10) afterDelivery();
      });
      runners.push(
        await startJobWorker({
          connectionString: process.env.DATABASE_URL!,
          jobs,
          concurrency: 2,
          pollIntervalMs: 20,
          events,
        }),
      );
    }
    await kickStartupJobs(jobs);

    await raiseAlert({ kind: "quarantine", subject: "key_two_workers", now: new Date() });
    await delivered;
    deliveredAt = notifierRuns;
    await settled;
    await Promise.all(runners.map((runner) => runner.stop()));
    runners = [];

    expect(receiver.requests).toHaveLength(1);
    expect(await prisma.outboxMessage.findMany({ select: { status: true } })).toEqual([{ status: "sent" }]);
  });

  it("repeats at most once per interval while open, then one digest when resolved", async () => {
    const receiver = await http();
    const channel = await createAlertChannel({
      actor: admin,
      input: { kind: "slack", name: "chat", target: receiver.url },
    });
    const t0 = Date.now() + 1_000;
    const at = (minutes: number) => new Date(t0 + minutes * 60_000);
    const interval = { repeatIntervalMs: 30 * 60_000 };
    const send = (minutes: number) => processOutbox({ client, now: () => at(minutes) });

    await raiseAlert({ kind: "superseded_key", subject: "key_old", now: at(0) });
    expect(await notifyAlerts({ now: at(0), ...interval })).toMatchObject({
      staged: 1,
      byEvent: { "alert.opened": 1 },
    });
    await raiseAlert({ kind: "superseded_key", subject: "key_old", now: at(5) });
    expect((await notifyAlerts({ now: at(5), ...interval })).staged).toBe(0); // seen again, but within the interval
    await raiseAlert({ kind: "superseded_key", subject: "key_old", now: at(20) });
    expect(await notifyAlerts({ now: at(31), ...interval })).toMatchObject({ byEvent: { "alert.repeated": 1 } });
    expect((await notifyAlerts({ now: at(90), ...interval })).staged).toBe(0); // not seen since the reminder
    await resolveAlerts({ kind: "superseded_key", subjects: ["key_old"], now: at(91) });
    expect(await notifyAlerts({ now: at(91), ...interval })).toMatchObject({ byEvent: { "alert.resolved": 1 } });
    expect((await notifyAlerts({ now: at(200), ...interval })).staged).toBe(0);
    await send(200);

    expect(receiver.requests.map((r) => (JSON.parse(r.body) as { text: string }).text.split("\n")[0])).toEqual([
      "[Keyhook] New alert — superseded key: key_old",
      "[Keyhook] Still open — superseded key: key_old",
      "[Keyhook] Resolved — superseded key: key_old",
    ]);
    expect((await outboxOf(channel.id)).map((row) => row.idempotencyKey.split(":").slice(3).join(":"))).toEqual([
      "1:opened",
      "1:repeated:1",
      "1:resolved",
    ]);
  });

  it("a channel added while an alert is open is sent that alert once; a resolved one is not", async () => {
    const receiver = await http();
    const raisedAt = new Date(Date.now() - 3 * 3_600_000);
    await raiseAlert({
      kind: "quarantine",
      subject: "quarantine/district-1/key_x",
      tenantId: "district-1",
      now: raisedAt,
    });
    await raiseAlert({ kind: "superseded_key", subject: "key_gone", now: raisedAt });
    await resolveAlerts({ kind: "superseded_key", subjects: ["key_gone"], now: raisedAt });
    const channel = await createAlertChannel({
      actor: admin,
      input: { kind: "slack", name: "late", target: receiver.url },
    });

    expect(await notifyAlerts()).toMatchObject({ staged: 1, byEvent: { "alert.opened": 1 } });
    expect((await notifyAlerts()).staged).toBe(0);
    await processOutbox({ client, now: () => new Date(Date.now() + 1_000) });
    expect(receiver.requests).toHaveLength(1);
    expect((JSON.parse(receiver.requests[0]!.body) as { text: string }).text).toContain("quarantine/district-1/key_x");
    expect(await outboxOf(channel.id)).toHaveLength(1);
  });

  it("a receiver answering 500 three times then 200: delivered exactly once, after backoff", async () => {
    const receiver = await http((n) => (n <= 3 ? 500 : 200));
    const channel = await createAlertChannel({
      actor: admin,
      input: { kind: "webhook", name: "flaky", target: receiver.url },
    });
    await raiseAlert({ kind: "purge_failed", subject: "purge", now: new Date() });
    await notifyAlerts();
    const [row] = await outboxOf(channel.id);
    const t0 = Date.now() + 1_000;
    const send = (ms: number) => processOutbox({ client, now: () => new Date(t0 + ms), baseBackoffMs: 2_000 });

    // Backoff 2 s, 4 s, 8 s: each retry is due only then.
    expect(await send(0)).toMatchObject({ retrying: 1 });
    expect(await send(1_999)).toMatchObject({ claimed: 0 });
    expect(await send(2_000)).toMatchObject({ retrying: 1 });
    expect(await send(5_999)).toMatchObject({ claimed: 0 });
    expect(await send(6_000)).toMatchObject({ retrying: 1 });
    expect(await send(13_999)).toMatchObject({ claimed: 0 });
    expect(await send(14_000)).toMatchObject({ sent: 1 });
    expect(await send(3_600_000)).toMatchObject({ claimed: 0 });

    expect(receiver.requests.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    // Every attempt is the same message (one webhook-id), so the receiver can tell a retry from a new alert.
    expect(new Set(receiver.requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set([row!.idempotencyKey]));
    const attempts = await prisma.outboxAttempt.findMany({ where: { outboxId: row!.id }, orderBy: { id: "asc" } });
    expect(attempts.map((a) => a.status)).toEqual([500, 500, 500, 200]);
    expect(await prisma.outboxMessage.findUniqueOrThrow({ where: { id: row!.id } })).toMatchObject({
      status: "sent",
      attempts: 4,
    });
    const [view] = await listAlertChannels({ actor: admin });
    expect(view).toMatchObject({ consecutiveFailures: 0, failing: false });
    expect(await prisma.alert.count({ where: { kind: CHANNEL_FAILING_ALERT } })).toBe(0);
  });

  it("a receiver down for good: the channel raises its own alert and shows as failing", async () => {
    const channel = await createAlertChannel({
      actor: admin,
      input: { kind: "slack", name: "gone", target: await deadUrl() },
    });
    await raiseAlert({ kind: "provider_unreachable", subject: "provider", now: new Date() });
    await notifyAlerts();
    const [row] = await outboxOf(channel.id);
    let t = Date.now() + 1_000;
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect(await processOutbox({ client, now: () => new Date(t) })).toMatchObject({ retrying: 1 });
      t = (await prisma.outboxMessage.findUniqueOrThrow({ where: { id: row!.id } })).nextAttemptAt.getTime();
    }
    const alert = await prisma.alert.findUniqueOrThrow({
      where: { kind_subject: { kind: CHANNEL_FAILING_ALERT, subject: channel.id } },
    });
    expect(alert).toMatchObject({ state: "open" });
    expect(alert.details).toMatchObject({ channel: "gone", consecutiveFailures: 5 });
    const [view] = await listAlertChannels({ actor: admin });
    expect(view).toMatchObject({ failing: true, consecutiveFailures: 5 });
    expect(view!.lastError).toMatch(/could not reach the receiver/);
    expect(view!.target).not.toContain("/hook"); // masked
  });
});
