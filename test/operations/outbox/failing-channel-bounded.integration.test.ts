// An alert channel that stays down for a month, on a moving clock (no waiting): the notifier, the
// outbox and the sweeps run every 30 simulated minutes and the purge every night, while five
// alerts stay open and keep recurring and a new one opens every day. What a dead channel may cost
// is bounded: it is tried about once an hour once it is down (not each of its messages on its own
// backoff), its messages are given up into ONE outbox_failed alert that names it, and the failed
// rows retire after OUTBOX_RETENTION_DAYS, so the outbox levels off instead of growing.
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY, resetEnvForTests } from "@/lib/core/config/env";
import { getAlert } from "@/lib/views/alerts/get-alert";
import { raiseAlert } from "@/lib/operations/alerts/upsert-alert";
import { createAlertChannel } from "@/lib/operations/notifications/manage-channels";
import { notifyAlerts } from "@/lib/operations/notifications/notify-alerts";
import { processOutbox } from "@/lib/operations/outbox/process-outbox";
import { createProviderClient } from "@/lib/operations/provider/client";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { sweepAlerts } from "@/lib/operations/worker/sweep-alerts";
import { startHttpReceiver, type HttpReceiver } from "../../support/receivers";
import { resetDatabase } from "../../support/state";

const admin: Actor = { id: "u-admin", email: "admin@keyhook.test", name: null, role: "platform_admin", tenantId: null };
const client = createProviderClient({ baseUrl: "http://127.0.0.1:9", apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 });
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STEP = 30 * 60_000;

beforeAll(() => {
  process.env.OUTBOX_RETENTION_DAYS = "7";
  resetEnvForTests();
});
afterAll(() => {
  delete process.env.OUTBOX_RETENTION_DAYS;
  resetEnvForTests();
});
let receiver: HttpReceiver;
beforeEach(async () => {
  await resetDatabase();
  receiver = await startHttpReceiver(() => 503);
});
afterEach(() => receiver.close());

const outboxRows = async () => ({
  rows: await prisma.outboxMessage.count(),
  attempts: await prisma.outboxAttempt.count(),
  pending: await prisma.outboxMessage.count({ where: { status: "pending" } }),
});

it("a channel down for a month: tried about once an hour, one alert naming it, and the outbox levels off", async () => {
  const channel = await createAlertChannel({
    actor: admin,
    input: { kind: "webhook", name: "On-call pager", target: receiver.url },
  });
  const start = Date.now() + 60_000;
  const recurring = Array.from({ length: 5 }, (_, i) => `quarantine/district-${i}/key_misrouted`);
  const byDay: { day: number; rows: number; attempts: number; pending: number; tried: number }[] = [];
  let triedBefore = 0;

  for (let at = start; at <= start + 30 * DAY + 3 * HOUR; at += STEP) {
    const now = new Date(at);
    const minute = (at - start) % DAY;
    if ((at - start) % HOUR === 0)
      for (const subject of recurring) await raiseAlert({ kind: "quarantine", subject, now, occurrences: 1 });
    if (minute === 0) await raiseAlert({ kind: "superseded_key", subject: `api_keys/key_day_${at}`, now });
    await notifyAlerts({ now });
    while ((await processOutbox({ client, now: () => now })).claimed > 0);
    if (minute % (6 * HOUR) === 0) await sweepAlerts({ now });
    if (minute === 3 * HOUR) {
      await runPurge({ trigger: "manual", now, pauseMs: 0 });
      const day = Math.round((at - start) / DAY);
      byDay.push({ day, ...(await outboxRows()), tried: receiver.requests.length - triedBefore });
      triedBefore = receiver.requests.length;
      // After the first day's backlog (the messages staged before it failed), at most one message
      // waits for it, and it is tried about once an hour (a day's ramp of retries first).
      const report = byDay.map((d) => JSON.stringify(d)).join("\n");
      if (day >= 1) expect(byDay.at(-1)!.pending, report).toBeLessThanOrEqual(1);
      if (day >= 2) expect(byDay.at(-1)!.tried, report).toBeLessThanOrEqual(26);
    }
  }

  const report = byDay.map((d) => JSON.stringify(d)).join("\n");
  expect(receiver.requests.length, report).toBeLessThan(30 * 26);
  // The given-up messages retire after the 7-day window: day 30 is no bigger than day 15.
  const [mid, end] = [byDay.find((d) => d.day === 15)!, byDay.find((d) => d.day === 30)!];
  expect(end.rows, report).toBeLessThanOrEqual(mid.rows + 2);
  expect(end.attempts, report).toBeLessThanOrEqual(mid.attempts + 2);

  // One alert for all its given-up messages, naming the channel; the channel's own alert too.
  const failed = await prisma.alert.findMany({ where: { kind: "outbox_failed" } });
  expect(failed.map((a) => [a.subject, a.state])).toEqual([[`outbox/channel/${channel.id}`, "open"]]);
  const detail = await getAlert({ actor: admin, id: String(failed[0]!.id) });
  expect(detail.summary).toMatch(/^\d+ alert message\(s\) to "On-call pager" were given up$/);
  expect(detail.details.fix).toMatch(/Send a test/);
  const failing = await prisma.alert.findMany({ where: { kind: "channel_failing" } });
  expect(failing.map((a) => a.state)).toEqual(["open"]);
  // The channel is never sent the alerts about itself.
  const titles = receiver.requests.map((r) => (JSON.parse(r.body) as { data: { title: string } }).data.title);
  expect(titles.filter((title) => /channel|given up/.test(title))).toEqual([]);
}, 600_000);
