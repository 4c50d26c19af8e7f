// The readiness check tells the truth about a healthy system however far away the provider is and
// however busy ingest is, names a webhook the provider lost as such, and the fix it names works:
// a fresh install passes after the worker's first start (no purge run by hand), relays hold every
// answer between us and the provider for 100 ms and 1 s, the check runs during an ingest load,
// and after the provider's state is reset, Settings → Register puts our webhook back.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY, parseEnv } from "@/lib/core/config/env";
import { createProviderClient } from "@/lib/operations/provider/client";
import { HOOK_URL_SETTING } from "@/lib/operations/provider/webhook-registration";
import { runReadiness, type ReadinessRunResult } from "@/lib/operations/readiness/run-readiness";
import { waitFor } from "@/lib/operations/readiness/wait-for";
import { registerWebhook } from "@/lib/operations/provider/register-webhook";
import { waitUntil } from "../../support/child-process";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";
import { keyEvent, TEST_SECRET } from "../../support/webhooks";
import { signDelivery } from "@/lib/operations/provider/signed-delivery";
import { startRunningSystem, type RunningSystem } from "../../support/readiness-system";

let system: RunningSystem;
let replacement: SimulatorProcess | null = null;
beforeAll(async () => {
  system = await startRunningSystem({ distance: true });
}, 60_000);
afterAll(async () => {
  await Promise.all([system?.stop(), replacement?.dispose()]);
});

const run = (overrides: Partial<Parameters<typeof runReadiness>[0]> = {}) =>
  runReadiness({
    actor: { id: null, label: "test operator" },
    trigger: "cli",
    provider: system.client,
    webhookUrl: system.webhookUrl,
    // The check's own default: the bound an operator gets.
    waitTimeoutMs: 20_000,
    ...overrides,
  });
const verdict = (result: ReadinessRunResult) =>
  result.steps.map((s) => [s.id, s.passed, s.passed ? null : `${s.summary} | ${s.fix}`]);
const ALL_PASS = [
  ["duplicate_delivery", true, null],
  ["forced_failure", true, null],
  ["delivery_history", true, null],
  ["retention", true, null],
  // One server, no standby: a warning that passes (no failover can lose what it never has).
  ["failover_durability", true, null],
  // No WAL archiving on the test server: a warning that passes, like the single server above.
  ["backups", true, null],
];

it("passes on a fresh install once the worker has started, with no purge run by hand", async () => {
  // The worker's start jobs, given time; the check then says what it finds either way.
  await waitFor(async () => (await prisma.purgeRun.count({ where: { status: "ran" } })) > 0, {
    timeoutMs: 20_000,
    intervalMs: 100,
  });
  const result = await run();
  expect(verdict(result)).toEqual(ALL_PASS);
  expect(await prisma.purgeRun.findFirst({ where: { status: "ran" } })).toMatchObject({ trigger: "schedule" });
}, 60_000);

it.each([100, 1_000])(
  "gives the healthy verdict with the provider %i ms away",
  async (ms) => {
    system.setProviderDistance(ms);
    try {
      const result = await run();
      expect(verdict(result)).toEqual(ALL_PASS);
      // The provider listed its attempt only after our answer had travelled back to it.
      expect(result.steps[0]!.evidence.provider_listed_after_ms).toEqual(expect.any(Number));
    } finally {
      system.setProviderDistance(0);
    }
  },
  90_000,
);

it("gives the healthy verdict during an ingest load", async () => {
  let stop = false;
  let sent = 0;
  const answers = new Set<number>();
  const sender = async (lane: number) => {
    for (let sequence = 1; !stop; sequence++) {
      const event = keyEvent({
        type: "key.revoked",
        tenantId: `district-load-${lane}`,
        keyId: `key_l${lane}_${sequence}`,
        sequence,
      });
      const signed = signDelivery({ body: JSON.stringify(event), webhookId: String(event.id), secrets: [TEST_SECRET] });
      const answer = await fetch(system.webhookUrl, { method: "POST", headers: signed.headers, body: signed.body });
      // A 503 (a transaction past the short INGEST_TX_TIMEOUT_MS on a busy machine) is what a
      // provider retries; anything else would be a bug.
      answers.add(answer.status);
      if (answer.status === 200) sent++;
    }
  };
  const load = [0, 1, 2, 3].map(sender);
  // The provider's own queue is busy too: events for other districts delivered alongside the test event.
  await system.sim.control("POST", "/_sim/emit", { count: 50, tenantCount: 10 });
  try {
    await waitUntil(() => sent >= 20);
    const result = await run();
    expect(verdict(result)).toEqual(ALL_PASS);
  } finally {
    stop = true;
    await Promise.all(load);
  }
  expect(sent).toBeGreaterThan(20);
  expect([...answers].filter((status) => status !== 200 && status !== 503)).toEqual([]);
}, 90_000);

it("names a webhook the provider lost, and Settings → Register puts it back", async () => {
  // No worker from here on: its hourly registration would repair the hook on its own.
  await system.worker.kill();
  const registeredUrl = (await prisma.setting.findUniqueOrThrow({ where: { key: HOOK_URL_SETTING } })).value as string;
  const lostHookId = system.hookId;
  // The provider's state is reset: same address, no hooks, no history.
  await system.sim.dispose();
  replacement = await startSimulator({
    env: { PROVIDER_SIM_TIME_SCALE: "1000", PROVIDER_SIM_PORT: String(system.sim.port) },
  });
  const fresh = createProviderClient({ baseUrl: replacement.url, apiKey: DEV_PROVIDER_API_KEY });
  expect(await fresh.getWebhook({ hookId: lostHookId })).toBeNull();

  const broken = await run();
  const [duplicate, , history] = broken.steps;
  expect(duplicate).toMatchObject({
    passed: false,
    summary: `our webhook is not registered at the provider: it does not know hook ${lostHookId}, so it delivers nothing to us`,
  });
  expect(duplicate!.fix).toMatch(/Settings → Register webhook now/);
  expect(history).toMatchObject({ passed: false });
  expect(history!.summary).toMatch(/^our webhook is not registered at the provider/);
  expect(broken.passed).toBe(false);

  const user = await prisma.user.create({ data: { email: "root@keyhook.test", role: "platform_admin" } });
  const admin: Actor = { id: user.id, email: user.email, name: null, role: "platform_admin", tenantId: null };
  const config = parseEnv({ NODE_ENV: "test", PROVIDER_WEBHOOK_URL: registeredUrl });
  const repaired = await registerWebhook({ actor: admin, config, client: system.client });
  expect(repaired).toMatchObject({ created: true, replacedHookId: lostHookId, url: registeredUrl });
  expect(await fresh.getWebhook({ hookId: repaired.hookId })).toMatchObject({ url: registeredUrl });

  expect(verdict(await run())).toEqual(ALL_PASS);
  // Asked again, the provider confirms it: nothing is registered twice.
  expect(await registerWebhook({ actor: admin, config, client: system.client })).toMatchObject({
    created: false,
    hookId: repaired.hookId,
  });
}, 90_000);
