// The secrets the app stores (alert channel addresses, SMTP credentials, JSON signing secrets) are
// sealed at rest with SECRETS_ENCRYPTION_KEYS: every kind round-trips to a real receiver, the rows
// hold none of them, the page shows masks only, rotation re-seals under the newest key, and a
// missing or wrong key stops every process at start with one line naming the setting.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import type { Actor } from "@/lib/core/auth/actor";
import { disconnectDb, prisma } from "@/lib/core/db/client";
import { resetEnvForTests } from "@/lib/core/config/env";
import { listAlertChannels } from "@/lib/views/settings/list-channels";
import { createAlertChannel } from "@/lib/operations/notifications/manage-channels";
import { notificationSender } from "@/lib/operations/notifications/send-notification";
import { openSecret, sealSecret } from "@/lib/core/secrets/secret-box";
import { sealTotpSecret, totpSealContext } from "@/lib/core/auth/mfa/totp";
import { checkStoredSecrets, rotateStoredSecrets } from "@/lib/operations/secrets/stored-secrets";
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from "../../support/receivers";
import { debianPostgresMissing, startDebianPostgres, type DebianPostgres } from "../../support/debian-postgres";
import { resetDatabase } from "../../support/state";
import { applyMigrations } from "@/tooling/migrations/wasm-engine";

const admin: Actor = { id: "admin-1", email: "admin@keyhook.test", name: null, role: "platform_admin", tenantId: null };
const key = (id: string) => `${id}:${randomBytes(32).toString("base64")}`;
const K1 = key("k1");
const K2 = key("k2");
const SMTP_PASSWORD = "relay-password-Zq81";
const SLACK_TOKEN = "T0001/B0002/slacktokensecretXyZ";

let closers: (() => Promise<void>)[] = [];
const originalKeys = process.env.SECRETS_ENCRYPTION_KEYS;

function useKeys(value: string | undefined): void {
  if (value === undefined) delete process.env.SECRETS_ENCRYPTION_KEYS;
  else process.env.SECRETS_ENCRYPTION_KEYS = value;
  resetEnvForTests();
}

beforeEach(async () => {
  await resetDatabase();
  useKeys(K1);
});
afterEach(async () => {
  useKeys(originalKeys);
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

async function channelsOfEveryKind(): Promise<{
  slack: HttpReceiver;
  json: HttpReceiver;
  mail: SmtpReceiver;
  jsonSecret: string;
  ids: { slack: string; json: string; email: string };
}> {
  const slack = await startHttpReceiver();
  const json = await startHttpReceiver();
  const mail = await startSmtpReceiver({ auth: { user: "relay-user", pass: SMTP_PASSWORD } });
  closers.push(slack.close, json.close, mail.close);
  const slackChannel = await createAlertChannel({
    actor: admin,
    input: { kind: "slack", name: "chat", target: `${slack.url}/services/${SLACK_TOKEN}` },
  });
  const jsonChannel = await createAlertChannel({
    actor: admin,
    input: { kind: "webhook", name: "pager", target: json.url },
  });
  const emailChannel = await createAlertChannel({
    actor: admin,
    input: {
      kind: "email",
      name: "ops mail",
      target: "ops@example.org",
      smtpUrl: mail.url.replace("smtp://", `smtp://relay-user:${SMTP_PASSWORD}@`),
      fromAddress: "keyhook@example.org",
    },
  });
  return {
    slack,
    json,
    mail,
    jsonSecret: jsonChannel.secret!,
    ids: { slack: slackChannel.id, json: jsonChannel.id, email: emailChannel.id },
  };
}

const message = (channelId: string) => ({
  channelId,
  alertId: "1",
  event: "alert.opened" as const,
  title: "[Keyhook] New alert",
  text: "New alert — test",
  alert: {
    id: "1",
    kind: "test",
    subject: "s",
    tenantId: null,
    state: "open",
    count: 1,
    firstSeenAt: new Date().toISOString(),
    lastSeenAt: new Date().toISOString(),
  },
});

async function sendAll(ids: { slack: string; json: string; email: string }): Promise<void> {
  const send = notificationSender({ timeoutMs: 5_000 });
  await send({ kind: "notify.slack", payload: message(ids.slack), idempotencyKey: "m-slack" });
  await send({ kind: "notify.webhook", payload: message(ids.json), idempotencyKey: "m-json" });
  await send({ kind: "notify.email", payload: message(ids.email), idempotencyKey: "m-email" });
}

const storedColumns = async () =>
  (await prisma.alertChannel.findMany({ select: { target: true, smtpUrl: true, secret: true } })).flatMap((row) =>
    [row.target, row.smtpUrl, row.secret].filter((value): value is string => value !== null),
  );

describe("secrets at rest", () => {
  it("every kind is sealed in its row, opened for the send, and shown masked", async () => {
    const { slack, json, mail, jsonSecret, ids } = await channelsOfEveryKind();

    const stored = await storedColumns();
    expect(stored).toHaveLength(5); // 3 addresses, 1 SMTP URL, 1 signing secret
    for (const value of stored) expect(value).toMatch(/^enc1:k1:/);
    const everything = JSON.stringify(await prisma.alertChannel.findMany(), (_key, value: unknown) =>
      typeof value === "bigint" ? value.toString() : value,
    );
    for (const secret of [SLACK_TOKEN, SMTP_PASSWORD, jsonSecret, json.url, "ops@example.org"])
      expect(everything).not.toContain(secret);

    await sendAll(ids);
    expect(slack.requests.map((r) => r.status)).toEqual([200]);
    const delivery = json.requests[0]!;
    expect(() =>
      new Webhook(jsonSecret).verify(delivery.body, {
        "webhook-id": String(delivery.headers["webhook-id"]),
        "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
        "webhook-signature": String(delivery.headers["webhook-signature"]),
      }),
    ).not.toThrow();
    expect(mail.messages.map((m) => [m.user, m.to])).toEqual([["relay-user", ["ops@example.org"]]]);

    const view = await listAlertChannels({ actor: admin });
    const byKind = Object.fromEntries(view.map((c) => [c.kind, c]));
    expect(byKind.slack!.target).toBe(`http://127.0.0.1:${new URL(slack.url).port}/…tXyZ`);
    expect(byKind.webhook!.secret).toMatch(/^whsec_… \(fingerprint [0-9a-f]{8}\)$/);
    expect(byKind.email!.smtpRelay).toBe(`smtp://relay-user:•••@127.0.0.1:${new URL(mail.url).port}`);
    expect(byKind.email!.target).toBe("ops@example.org");
    expect(JSON.stringify(view)).not.toContain(SMTP_PASSWORD);
    expect(JSON.stringify(view)).not.toContain(SLACK_TOKEN);
  });

  it("a sealed value opens only in its own column and row", () => {
    const sealed = sealSecret("https://hooks.example/T1", "alert_channels.target:ch_a");
    expect(openSecret(sealed, "alert_channels.target:ch_a")).toBe("https://hooks.example/T1");
    expect(() => openSecret(sealed, "alert_channels.target:ch_b")).toThrow(/does not open it/);
    expect(() => openSecret(sealed, "alert_channels.smtpUrl:ch_a")).toThrow(/does not open it/);
  });

  it("rotation re-seals every secret under the newest key; then the old key can go", async () => {
    const { slack, json, mail, ids } = await channelsOfEveryKind();
    // A value stored before encryption existed: still read, and sealed by the rotation.
    await prisma.alertChannel.update({
      where: { id: ids.slack },
      data: { target: `${slack.url}/services/${SLACK_TOKEN}` },
    });
    // An authenticator app's key (a second factor) is a sealed secret too.
    const user = await prisma.user.create({ data: { email: "totp@x.test", role: "support" } });
    await prisma.mfaFactor.create({
      data: {
        id: "f_totp",
        userId: user.id,
        kind: "totp",
        label: "app",
        totpSecret: sealTotpSecret("f_totp", "JBSWY3DPEHPK3PXP"),
        confirmedAt: new Date(),
      },
    });
    expect(await checkStoredSecrets()).toEqual({ total: 6, clear: 1, byKey: { k1: 5 } });

    // The new key first, the old one kept: new writes use k2, old values still open.
    useKeys(`${K2} ${K1}`);
    const rotated = await rotateStoredSecrets();
    expect(rotated.resealed).toBe(4);
    expect(rotated.after).toEqual({ total: 6, clear: 0, byKey: { k2: 6 } });
    for (const value of await storedColumns()) expect(value).toMatch(/^enc1:k2:/);

    useKeys(K2);
    expect(await checkStoredSecrets()).toEqual({ total: 6, clear: 0, byKey: { k2: 6 } });
    const factor = await prisma.mfaFactor.findUniqueOrThrow({ where: { id: "f_totp" } });
    expect(openSecret(factor.totpSecret!, totpSealContext("f_totp"))).toBe("JBSWY3DPEHPK3PXP");
    await sendAll(ids);
    expect([slack.requests.length, json.requests.length, mail.messages.length]).toEqual([1, 1, 1]);
  });

  it("without the key that sealed them, or with another key under its id, the check names the setting", async () => {
    await channelsOfEveryKind();
    useKeys(K2);
    await expect(checkStoredSecrets()).rejects.toThrow(
      /^invalid setting SECRETS_ENCRYPTION_KEYS: 5 stored secret\(s\) are sealed with key "k1", which it does not hold \(keep a key until `npm run secrets -- rotate` has re-sealed what it sealed\)$/,
    );
    useKeys(key("k1"));
    await expect(checkStoredSecrets()).rejects.toThrow(
      /^invalid setting SECRETS_ENCRYPTION_KEYS: 5 stored secret\(s\) are sealed with key "k1", and its key "k1" does not open them \(not the key that sealed them\)$/,
    );
  });

  it("the launcher and the worker refuse to start with a wrong key, in one line naming it", async () => {
    await channelsOfEveryKind();
    const env = {
      ...process.env,
      SECRETS_ENCRYPTION_KEYS: key("k1"),
      KEYHOOK_ALLOW_DEV_SECRET: "1",
      LOG_LEVEL: "warn",
      PORT: "1",
    };
    const run = (args: string[]) =>
      spawnSync(process.execPath, ["--conditions=react-server", "--import", "tsx", ...args], {
        env,
        encoding: "utf8",
        timeout: 60_000,
      });
    for (const [args, prefix] of [
      [["scripts/boot.ts", "start"], "keyhook: "],
      [["server/worker.ts"], "keyhook worker: "],
    ] as const) {
      const result = run([...args]);
      expect(result.status, result.stderr).toBe(1);
      expect(result.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(
          new RegExp(
            `^${prefix}invalid setting SECRETS_ENCRYPTION_KEYS: 5 stored secret\\(s\\) are sealed with key "k1", and its key "k1" does not open them`,
          ),
        ),
      ]);
    }
  }, 120_000);

  it("`npm run secrets -- rotate` re-seals and reports per key", async () => {
    await channelsOfEveryKind();
    const result = spawnSync(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "scripts/secrets.ts", "rotate"],
      { env: { ...process.env, SECRETS_ENCRYPTION_KEYS: `${K2},${K1}` }, encoding: "utf8", timeout: 60_000 },
    );
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(
      're-sealed 3 channel(s) under key "k2": 5 stored secret(s), 5 sealed with key "k2"',
    );
    for (const value of await storedColumns()) expect(value).toMatch(/^enc1:k2:/);
  }, 60_000);
});

// Debian's pg_dump (15) refuses the embedded server (18): this part runs on a Debian PostgreSQL.
const dumpSkip = debianPostgresMissing();
describe.skipIf(dumpSkip !== null && process.env.CI !== "true")("a plain pg_dump", () => {
  let server: DebianPostgres;
  const fileDatabase = process.env.DATABASE_URL;

  beforeAll(async () => {
    server = await startDebianPostgres({
      dir: ".data/test-debian-postgres",
      port: Number(process.env.TEST_DEBIAN_PG_PORT ?? 54341),
    });
    server.tool("createdb", ["-h", "127.0.0.1", "-p", new URL(server.url("x")).port, "-U", "postgres", "keyhook"]);
    await applyMigrations({ databaseUrl: server.url("keyhook") });
    await disconnectDb();
    process.env.DATABASE_URL = server.url("keyhook");
    resetEnvForTests();
  }, 120_000);
  afterAll(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = fileDatabase;
    resetEnvForTests();
    server?.stop();
  });

  it("of a database holding channels of every kind contains none of their secrets", async () => {
    const { json, jsonSecret } = await channelsOfEveryKind();
    const dump = server.tool("pg_dump", ["--dbname", server.url("keyhook")]);
    expect(dump).toContain("COPY public.alert_channels");
    expect(dump).toMatch(/\tenc1:k1:/);
    for (const secret of [SLACK_TOKEN, SMTP_PASSWORD, jsonSecret, jsonSecret.slice(6), json.url, "ops@example.org"])
      expect(dump).not.toContain(secret);
  }, 60_000);
});
