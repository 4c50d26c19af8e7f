// The worker with the provider down: every job starts at once — the rollups fold, the purge runs,
// alert notifications reach their channel — while the webhook registration, one job among the
// others, keeps failing and retrying. Its failures are what the provider-unreachable alert reads,
// so a provider that stays unreachable raises that alert and it reaches the channel.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepProviderUnreachable } from "@/lib/operations/alerts/condition-sweeps";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { createAlertChannel } from "@/lib/operations/notifications/manage-channels";
import { getProviderLink, PROVIDER_LINK_SETTING, recordProviderCall } from "@/lib/operations/provider/provider-link";
import { waitUntil } from "../../support/child-process";
import { deliver, keyEvent } from "../../support/webhooks";
import { startWorker, type WorkerProcess } from "../../support/worker";
import { deadUrl, startHttpReceiver, type HttpReceiver } from "../../support/receivers";
import { claimsWithPrefix, DAY_MS, insertClaims } from "../../support/ledger-rows";

const admin: Actor = { id: "admin-1", email: "admin@keyhook.test", name: null, role: "platform_admin", tenantId: null };
const MINUTE = 60_000;

describe("the provider-unreachable alert reads the webhook registration's calls", () => {
  it("raises after the threshold of calls without an answer, and resolves on the next answer", async () => {
    const t0 = new Date(Date.now() - 60 * MINUTE);
    const at = (minutes: number) => new Date(t0.getTime() + minutes * MINUTE);
    await recordProviderCall({ at: at(0), error: "could not reach the provider (ECONNREFUSED)" });
    await recordProviderCall({ at: at(10), error: "could not reach the provider (ECONNREFUSED)" });
    expect(await sweepProviderUnreachable(at(14), prisma, 15)).toEqual({ raised: 0, resolved: 0 });
    expect(await sweepProviderUnreachable(at(16), prisma, 15)).toEqual({ raised: 1, resolved: 0 });
    expect(await prisma.alert.findFirstOrThrow({ where: { kind: "provider_unreachable" } })).toMatchObject({
      state: "open",
      details: expect.objectContaining({ failing_since: at(0).toISOString(), failed_calls: 2 }),
    });
    await recordProviderCall({ at: at(17), error: null });
    expect(await sweepProviderUnreachable(at(18), prisma, 15)).toEqual({ raised: 0, resolved: 1 });
    expect(await getProviderLink()).toMatchObject({ lastAnswerAt: at(17), failingSince: null, failedCalls: 0 });
    await prisma.alert.deleteMany();
    await prisma.setting.deleteMany({ where: { key: PROVIDER_LINK_SETTING } });
  });
});

describe("a worker started while the provider is down", () => {
  let worker: WorkerProcess;
  let receiver: HttpReceiver;
  let expired: string;
  let startedAt: Date;

  beforeAll(async () => {
    receiver = await startHttpReceiver();
    await createAlertChannel({ actor: admin, input: { kind: "slack", name: "ops chat", target: receiver.url } });
    expect(
      (await deliver(keyEvent({ type: "key.created", tenantId: "district-a", keyId: "key_a1", sequence: 1 }))).status,
    ).toBe(200);
    expired = await insertClaims({ count: 3, receivedAt: new Date(Date.now() - 30 * DAY_MS) });
    // The provider has not answered for 20 minutes already (an earlier worker's calls).
    await recordProviderCall({
      at: new Date(Date.now() - 20 * MINUTE),
      error: "could not reach the provider (ECONNREFUSED)",
    });
    startedAt = new Date();
    worker = startWorker({
      DATABASE_URL: process.env.DATABASE_URL!,
      PROVIDER_URL: await deadUrl(),
      PROVIDER_WEBHOOK_URL: "http://127.0.0.1:1/api/webhooks/keys",
      ROLLUP_INTERVAL_MS: "200",
      ALERT_NOTIFY_INTERVAL_MS: "500",
      ALERT_SWEEP_INTERVAL_MS: "1000",
      LOG_LEVEL: "info",
    });
  });
  afterAll(async () => {
    await worker?.kill();
    await receiver?.close();
  });

  it("folds the rollups", async () => {
    await waitUntil(async () => {
      const claims = await prisma.rollupWatermark.findUnique({ where: { source: "processed_events" } });
      return (claims?.foldedId ?? 0n) > 0n;
    }, 100);
  }, 30_000);

  it("runs the purge", async () => {
    await waitUntil(async () => (await prisma.purgeRun.count({ where: { status: "ran" } })) > 0, 100);
    expect(await claimsWithPrefix(expired)).toMatchObject({ count: 0 });
  }, 30_000);

  it("keeps retrying the registration, and the provider-unreachable alert reaches the channel", async () => {
    await waitUntil(async () => {
      const link = await getProviderLink();
      return link.failedCalls >= 3 && link.lastFailureAt !== null && link.lastFailureAt > startedAt;
    }, 100);
    expect(await prisma.setting.findUnique({ where: { key: "provider.hook_id" } })).toBeNull();
    await waitUntil(() => receiver.requests.some((r) => r.body.includes("New alert — provider unreachable")), 100);
    const alert = await prisma.alert.findFirstOrThrow({ where: { kind: "provider_unreachable" } });
    expect(alert.state).toBe("open");
    expect((alert.details as { last_error: string }).last_error).toMatch(/could not reach the provider/);
    expect(worker.output.join("")).toMatch(/webhook registration failed; retrying/);
  }, 30_000);
});
