// Settings → Alert channels through the real server actions: zod-validated (a bad address is the
// form's message and stores nothing), audited, platform admins only, addresses masked on the page,
// a JSON webhook's secret shown once.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { declarationOf, executeAction } from "@/app/_lib/run-action";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { listAlertChannels } from "@/lib/views/settings/list-channels";
import { raiseAlert } from "@/lib/operations/alerts/upsert-alert";
import { startHttpReceiver } from "../../support/receivers";
import { resetDatabase } from "../../support/state";

vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const admin: Actor = { id: "admin-1", email: "admin@keyhook.test", name: null, role: "platform_admin", tenantId: null };
const support: Actor = { id: "support-1", email: "support@keyhook.test", name: null, role: "support", tenantId: null };

beforeEach(resetDatabase);
let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

async function actions() {
  const mod = await import("@/app/(dashboard)/settings/actions");
  return {
    create: declarationOf(mod.createAlertChannelAction)!,
    disable: declarationOf(mod.disableAlertChannelAction)!,
    remove: declarationOf(mod.deleteAlertChannelAction)!,
    test: declarationOf(mod.testAlertChannelAction)!,
  };
}

const form = (values: Record<string, string>) => {
  const data = new FormData();
  for (const [k, v] of Object.entries(values)) data.set(k, v);
  return data;
};

describe("alert channel settings", () => {
  it("refuses a bad address with a form message, stores nothing", async () => {
    const { create } = await actions();
    const cases: [Record<string, string>, string][] = [
      [{ kind: "slack", name: "chat", target: "not a url" }, "The incoming webhook URL must be an http(s):// URL"],
      [{ kind: "webhook", name: "", target: "https://example.org/hook" }, "Give the channel a name"],
      [
        {
          kind: "email",
          name: "mail",
          target: "ops@example.org, nobody",
          smtpUrl: "smtp://mail.example.org:25",
          fromAddress: "k@example.org",
        },
        "Every recipient must be an email address",
      ],
      [
        {
          kind: "email",
          name: "mail",
          target: "ops@example.org",
          smtpUrl: "http://mail.example.org",
          fromAddress: "k@example.org",
        },
        "The SMTP relay must be an smtp:// or smtps:// URL",
      ],
      [
        { kind: "pager", name: "x", target: "https://example.org" },
        "Choose Slack, JSON webhook, email or audit stream",
      ],
    ];
    for (const [values, message] of cases) {
      expect(await executeAction(create, admin, form(values))).toMatchObject({ ok: false, message });
    }
    expect(await prisma.alertChannel.count()).toBe(0);
  });

  it("adds channels (audited), shows the webhook secret once, masks addresses, pauses and deletes", async () => {
    const { create, disable, remove } = await actions();
    const slack = await executeAction(
      create,
      admin,
      form({ kind: "slack", name: "chat", target: "https://hooks.slack.example/services/T000/B000/SECRETTOKENxyz9" }),
    );
    expect(slack).toMatchObject({ ok: true, message: 'Added the Slack channel "chat".' });
    const webhook = await executeAction(
      create,
      admin,
      form({ kind: "webhook", name: "pager", target: "https://pager.example/in?token=abcd1234" }),
    );
    expect(webhook.ok).toBe(true);
    const secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(webhook.message)?.[1];
    expect(secret).toBeDefined();
    const email = await executeAction(
      create,
      admin,
      form({
        kind: "email",
        name: "mail",
        target: "ops@example.org;oncall@example.org",
        smtpUrl: "smtp://alerts:hunter2pass@mail.example.org:587",
        fromAddress: "keyhook@example.org",
      }),
    );
    expect(email.ok).toBe(true);

    const views = await listAlertChannels({ actor: admin });
    const page = JSON.stringify(views);
    expect(page).not.toContain("SECRETTOKEN");
    expect(page).not.toContain("token=abcd1234");
    expect(page).not.toContain("hunter2pass");
    expect(page).not.toContain(secret!);
    expect(views.map((v) => [v.name, v.target])).toEqual([
      ["chat", "https://hooks.slack.example/…xyz9"],
      ["pager", "https://pager.example/…1234"],
      ["mail", "ops@example.org, oncall@example.org"],
    ]);
    expect(views[2]!.smtpRelay).toBe("smtp://alerts:•••@mail.example.org:587");
    expect(views[1]!.secret).toMatch(/^whsec_… \(fingerprint [0-9a-f]{8}\)$/);

    // Support cannot change channels: refused like a missing page, and audited.
    const pager = views[1]!;
    expect(await executeAction(disable, support, form({ channelId: pager.id }))).toMatchObject({ ok: false });
    expect(await executeAction(disable, admin, form({ channelId: pager.id }))).toMatchObject({ ok: true });
    expect(await executeAction(remove, admin, form({ channelId: views[0]!.id }))).toMatchObject({ ok: true });
    const after = await listAlertChannels({ actor: admin });
    expect(after.map((v) => [v.name, v.enabled])).toEqual([
      ["pager", false],
      ["mail", true],
    ]);
    const audit = await prisma.auditLog.findMany({ orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.action, a.outcome])).toEqual([
      ["alert_channel.create", "ok"],
      ["alert_channel.create", "ok"],
      ["alert_channel.create", "ok"],
      ["settings.manage", "denied"],
      ["alert_channel.disable", "ok"],
      ["alert_channel.delete", "ok"],
    ]);
    expect(JSON.stringify(audit.map((a) => [a.target, a.details]))).not.toContain("hunter2pass");
  });

  it("refuses a second channel with the same name or the same address, next to the field, and keeps the first", async () => {
    const { create } = await actions();
    const url = "https://hooks.slack.example/services/T000/B000/SAMEsame1234";
    expect(
      await executeAction(create, admin, form({ kind: "slack", name: "On-call chat", target: url })),
    ).toMatchObject({
      ok: true,
    });
    expect(
      await executeAction(create, admin, form({ kind: "slack", name: " on-call CHAT ", target: url + "9" })),
    ).toMatchObject({
      ok: false,
      field: "name",
      message: 'A channel named "On-call chat" already exists: choose another name.',
    });
    expect(await executeAction(create, admin, form({ kind: "slack", name: "Second", target: url }))).toMatchObject({
      ok: false,
      field: "target",
      message: 'The channel "On-call chat" already sends to this address: every alert would go there twice.',
    });
    expect((await listAlertChannels({ actor: admin })).map((c) => c.name)).toEqual(["On-call chat"]);
  });

  it("Send a test answers where it was pressed: delivered (and the channel counts as answering) or the receiver's refusal", async () => {
    const { create, test } = await actions();
    let status = 200;
    const receiver = await startHttpReceiver(() => status);
    closers.push(receiver.close);
    await executeAction(create, admin, form({ kind: "webhook", name: "pager", target: receiver.url }));
    const [channel] = await listAlertChannels({ actor: admin });
    // It had been failing: its alert is open, its messages held back.
    await prisma.alertChannel.update({ where: { id: channel!.id }, data: { consecutiveFailures: 7 } });
    await raiseAlert({ kind: "channel_failing", subject: channel!.id, details: { channel: "pager" }, now: new Date() });

    const ok = await executeAction(test, admin, form({ channelId: channel!.id }));
    expect(ok).toMatchObject({ ok: true });
    expect(ok.message).toMatch(/^Test message delivered to "pager": the receiver answered 200 in \d+ ms\.$/);
    expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ type: "channel.test" });
    expect((await listAlertChannels({ actor: admin }))[0]).toMatchObject({ consecutiveFailures: 0, failing: false });

    status = 404;
    expect(await executeAction(test, admin, form({ channelId: channel!.id }))).toMatchObject({
      ok: false,
      message: 'The test did not reach "pager": the receiver answered 404: receiver error.',
    });
    expect(await executeAction(test, support, form({ channelId: channel!.id }))).toMatchObject({ ok: false });
    const audit = await prisma.auditLog.findMany({ where: { action: "alert_channel.test" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => a.outcome)).toEqual(["ok", "failed"]);
  });
});
