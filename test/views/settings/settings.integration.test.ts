// The Settings page's data and its one action: the signing secrets appear only as fingerprints
// (no secret, no base64 part of one, no other token), and "Register webhook now" against the real
// provider simulator is idempotent and audited, including when the provider cannot be reached.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import type { Actor } from "@/lib/core/auth/actor";
import { DEV_PROVIDER_API_KEY, parseEnv } from "@/lib/core/config/env";
import { createProviderClient } from "@/lib/operations/provider/client";
import { ProviderHttpError } from "@/lib/operations/provider/errors";
import { getRegisteredHookId, HOOK_URL_SETTING } from "@/lib/operations/provider/webhook-registration";
import { getPlatformSettings, type ReachabilityProbe } from "@/lib/views/settings/get-platform-settings";
import { registerWebhook } from "@/lib/operations/provider/register-webhook";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";
import { resetDatabase } from "../../support/state";

const OLD_SECRET = "whsec_b2xkLXNpZ25pbmctc2VjcmV0LWZvci10ZXN0cy1vbmx5";
const NEW_SECRET = "whsec_bmV3LXNpZ25pbmctc2VjcmV0LWZvci10ZXN0cy1vbmx5";
const METRICS_TOKEN = "metrics-token-for-tests-only";
const CRON_SECRET = "cron-secret-for-tests-only-123";
const HOOK_URL = "http://127.0.0.1:1/api/webhooks/keys";

const config = (overrides: Record<string, string> = {}) =>
  parseEnv({
    NODE_ENV: "test",
    WEBHOOK_SECRETS: `${OLD_SECRET}, ${NEW_SECRET}`,
    METRICS_TOKEN,
    CRON_SECRET,
    PROVIDER_WEBHOOK_URL: HOOK_URL,
    ...overrides,
  });
const reachable: ReachabilityProbe = { getWebhook: async () => null };

let sim: SimulatorProcess;
let admin: Actor;
let support: Actor;
const simClient = () => createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, sleep: async () => {} });
const deadClient = () =>
  createProviderClient({
    baseUrl: "http://127.0.0.1:1",
    apiKey: DEV_PROVIDER_API_KEY,
    maxRetries: 0,
    timeoutMs: 1_000,
  });

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.dispose();
});
beforeEach(async () => {
  await resetDatabase();
  const a = await prisma.user.create({ data: { email: "root@keyhook.test", role: "platform_admin" } });
  const s = await prisma.user.create({ data: { email: "help@keyhook.test", role: "support" } });
  admin = { id: a.id, email: a.email, name: null, role: "platform_admin", tenantId: null };
  support = { id: s.id, email: s.email, name: null, role: "support", tenantId: null };
});

const registerAudit = async () =>
  (await prisma.auditLog.findMany({ where: { action: "webhook.register" }, orderBy: { id: "asc" } })).map((a) => ({
    outcome: a.outcome,
    actorId: a.actorId,
    target: a.target,
  }));

describe("getPlatformSettings", () => {
  it("shows fingerprints of the signing secrets and never a secret, a base64 part of one, or a token", async () => {
    const view = await getPlatformSettings({ actor: admin, config: config(), probe: reachable });
    const fingerprint = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 8);
    expect(view.secrets).toEqual([
      { fingerprint: fingerprint(OLD_SECRET), isDevelopmentSecret: false },
      { fingerprint: fingerprint(NEW_SECRET), isDevelopmentSecret: false },
    ]);
    expect(view).toMatchObject({
      metricsTokenSet: true,
      cronSecretSet: true,
      provider: { kind: "reachable" },
      expectedUrl: { url: HOOK_URL, source: "PROVIDER_WEBHOOK_URL" },
    });
    const json = JSON.stringify(view);
    for (const secret of [OLD_SECRET, NEW_SECRET]) {
      expect(json).not.toContain(secret);
      expect(json).not.toContain(secret.slice("whsec_".length));
      expect(json).not.toContain(secret.slice("whsec_".length, "whsec_".length + 8));
    }
    expect(json).not.toContain(METRICS_TOKEN);
    expect(json).not.toContain(CRON_SECRET);
  });

  it("reports unset tokens as no, and a derived webhook URL when PROVIDER_WEBHOOK_URL is unset", async () => {
    const view = await getPlatformSettings({
      actor: admin,
      config: parseEnv({ NODE_ENV: "test", NEXTAUTH_URL: "https://keyhook.example.org/" }),
      probe: reachable,
    });
    expect(view).toMatchObject({
      metricsTokenSet: false,
      cronSecretSet: false,
      expectedUrl: { url: "https://keyhook.example.org/api/webhooks/keys", source: "NEXTAUTH_URL" },
    });
    expect(view.secrets).toEqual([{ fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/), isDevelopmentSecret: true }]);
  });

  it("an unreachable provider is a state on the page, not an error; a 404 before any registration still means reachable", async () => {
    expect((await getPlatformSettings({ actor: admin, config: config(), probe: deadClient() })).provider).toMatchObject(
      { kind: "unreachable" },
    );
    expect((await getPlatformSettings({ actor: admin, config: config(), probe: reachable })).provider).toEqual({
      kind: "reachable",
    });
    const refused: ReachabilityProbe = {
      getWebhook: async () =>
        Promise.reject(new ProviderHttpError("unauthorized", "provider answered 401", { status: 401 })),
    };
    expect((await getPlatformSettings({ actor: admin, config: config(), probe: refused })).provider).toMatchObject({
      kind: "key_refused",
    });
    // The real simulator, before any hook is registered: it answers, so it is reachable.
    expect((await getPlatformSettings({ actor: admin, config: config(), probe: simClient() })).provider).toEqual({
      kind: "reachable",
    });
  });
});

describe("a webhook the provider no longer knows", () => {
  it("shows as such on Settings, and Register registers it again instead of saying it is registered", async () => {
    await prisma.setting.createMany({
      data: [
        { key: "provider.hook_id", value: "hook_lost_in_a_reset" },
        { key: HOOK_URL_SETTING, value: HOOK_URL },
      ],
    });
    expect((await getPlatformSettings({ actor: admin, config: config(), probe: simClient() })).provider).toEqual({
      kind: "hook_missing",
      hookId: "hook_lost_in_a_reset",
    });
    const repaired = await registerWebhook({ actor: admin, config: config(), client: simClient() });
    expect(repaired).toMatchObject({ created: true, replacedHookId: "hook_lost_in_a_reset", url: HOOK_URL });
    expect(await getRegisteredHookId()).toBe(repaired.hookId);
    expect((await getPlatformSettings({ actor: admin, config: config(), probe: simClient() })).provider).toEqual({
      kind: "reachable",
    });
    expect(await registerAudit()).toEqual([{ outcome: "ok", actorId: admin.id, target: HOOK_URL }]);
  });
});

describe("registerWebhook", () => {
  it("registers once at the simulator, a second click changes nothing, and both are audited", async () => {
    const hooksBefore = (await sim.stats()).hooks;
    const first = await registerWebhook({ actor: admin, config: config(), client: simClient() });
    expect(first).toMatchObject({ url: HOOK_URL, created: true, hookId: expect.stringMatching(/^hook_/) });
    const second = await registerWebhook({ actor: admin, config: config(), client: simClient() });
    expect(second).toEqual({ ...first, created: false });
    expect(first.replacedHookId).toBeNull();
    expect((await sim.stats()).hooks).toBe(hooksBefore + 1);
    expect(await getRegisteredHookId()).toBe(first.hookId);
    expect((await prisma.setting.findUniqueOrThrow({ where: { key: HOOK_URL_SETTING } })).value).toBe(HOOK_URL);
    expect(await registerAudit()).toEqual([
      { outcome: "ok", actorId: admin.id, target: HOOK_URL },
      { outcome: "already_registered", actorId: admin.id, target: HOOK_URL },
    ]);
    const view = await getPlatformSettings({ actor: admin, config: config(), probe: simClient() });
    expect(view.registration).toMatchObject({ hookId: first.hookId, hookUrl: HOOK_URL });
  });

  it("a lost settings write re-registers the same hook (the idempotency key is derived from the URL)", async () => {
    const first = await registerWebhook({ actor: admin, config: config(), client: simClient() });
    await prisma.setting.deleteMany();
    const hooks = (await sim.stats()).hooks;
    const again = await registerWebhook({ actor: admin, config: config(), client: simClient() });
    expect(again).toEqual({ ...first, created: true });
    expect((await sim.stats()).hooks).toBe(hooks);
  });

  it("an unreachable provider is a form error, audited as failed, and stores nothing", async () => {
    await expect(registerWebhook({ actor: admin, config: config(), client: deadClient() })).rejects.toMatchObject({
      code: "unavailable",
    });
    expect(await getRegisteredHookId()).toBeNull();
    expect(await registerAudit()).toEqual([{ outcome: "failed", actorId: admin.id, target: HOOK_URL }]);
  });

  it("support may neither view nor register: refused before any provider call or audit row", async () => {
    const hooks = (await sim.stats()).hooks;
    await expect(getPlatformSettings({ actor: support, config: config(), probe: reachable })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(registerWebhook({ actor: support, config: config(), client: simClient() })).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await sim.stats()).hooks).toBe(hooks);
    expect(await registerAudit()).toEqual([]);
    expect(await prisma.setting.count()).toBe(0);
  });
});
