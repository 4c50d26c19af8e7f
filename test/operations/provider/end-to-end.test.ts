// End to end on loopback with real processes: the provider simulator delivers 1,000 key events
// to the app's ingest (test/support/ingest-server.ts, the same handler as the Next route) with
// 20 % duplicates, 10 % reordering and 5 % lost responses. Every event must be applied exactly
// once, the app's key states must equal the simulator's own truth, and the simulator's history
// must show the retries the lost responses caused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { createProviderClient, type ProviderDeliveryAttempt } from "@/lib/operations/provider/client";
import { enqueueOutbox } from "@/lib/core/outbox/enqueue-outbox";
import { processOutbox } from "@/lib/operations/outbox/process-outbox";
import { ensureWebhookRegistered } from "@/lib/operations/provider/webhook-registration";
import { startIngestServer, waitUntil, type RunningServer } from "../../support/child-process";
import { startSimulator, type SimulatorProcess, type SimulatorStats } from "../../support/simulator";

const EVENTS = 1_000;
const TENANTS = 20;

let sim: SimulatorProcess;
let ingest: RunningServer;

beforeAll(async () => {
  [sim, ingest] = await Promise.all([
    // Time scale 1000: the retry after a lost response (5 s in real life) comes after 5 ms.
    startSimulator({
      env: { PROVIDER_SIM_TIME_SCALE: "1000", PROVIDER_SIM_SEED: "4417", PROVIDER_SIM_CONCURRENCY: "8" },
    }),
    startIngestServer({ DATABASE_URL: process.env.DATABASE_URL!, LOG_LEVEL: "warn" }),
  ]);
});
afterAll(async () => {
  await Promise.all([sim?.dispose(), ingest?.kill()]);
});

type Truth = { tenants: { id: string; sequence: number; keys: { id: string; status: string }[] }[] };

describe("provider simulator → ingest, end to end", () => {
  it("1,000 events with 20% duplicates, 10% reordering and 5% lost responses: each applied once, states equal the provider's truth", async () => {
    const client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
    const { hookId } = await ensureWebhookRegistered({
      url: `http://127.0.0.1:${ingest.port}/api/webhooks/keys`,
      client,
    });
    await sim.setFaults({ duplicateRate: 0.2, reorderRate: 0.1, reorderDelayMs: 150, lostResponseRate: 0.05 });

    const started = performance.now();
    const emitted = await sim.control<{ emitted: number; event_ids: string[] }>("POST", "/_sim/emit", {
      count: EVENTS,
      tenantCount: TENANTS,
      tenantPrefix: "district-e2e-",
    });
    expect(emitted.emitted).toBe(EVENTS);

    let stats: SimulatorStats | undefined;
    await waitUntil(async () => {
      stats = await sim.stats();
      return stats.messages.succeeded === EVENTS && stats.queued === 0 && stats.inFlight === 0;
    }, 100);
    const elapsedMs = Math.round(performance.now() - started);
    const s = stats!;

    // The faults really happened, in roughly the asked proportions.
    expect(s.attempts.duplicate).toBeGreaterThan(EVENTS * 0.1);
    expect(s.attempts.reordered).toBeGreaterThan(EVENTS * 0.04);
    expect(s.attempts.lost_response).toBeGreaterThan(EVENTS * 0.02);
    expect(s.messages.failed).toBe(0);

    // Exactly once: one claim per event, each claimed by exactly one delivery; every other
    // delivery of it (duplicates, retries after lost responses) was answered "duplicate".
    const ledger = await prisma.processedEvent.findMany({ select: { eventId: true, outcome: true } });
    expect(ledger).toHaveLength(EVENTS);
    expect(new Set(ledger.map((row) => row.eventId))).toEqual(new Set(emitted.event_ids));
    expect(ledger.filter((row) => row.outcome !== "applied" && row.outcome !== "stale")).toEqual([]);
    const receipts = await prisma.receipt.groupBy({ by: ["outcome"], _count: { _all: true } });
    const byOutcome = Object.fromEntries(receipts.map((r) => [r.outcome, r._count._all]));
    expect((byOutcome.applied ?? 0) + (byOutcome.stale ?? 0)).toBe(EVENTS);
    expect(byOutcome.duplicate).toBe(s.attempts.total - EVENTS);
    expect(await prisma.receipt.count({ where: { status: { not: 200 } } })).toBe(0);

    // The app's key states equal the provider's own truth, tenant by tenant.
    const truth = await sim.control<Truth>("GET", "/_sim/truth");
    const expected = Object.fromEntries(
      truth.tenants.map((t) => [t.id, Object.fromEntries(t.keys.map((k) => [k.id, k.status]))]),
    );
    const keys = await prisma.apiKey.findMany({ select: { id: true, tenantId: true, status: true } });
    const actual: Record<string, Record<string, string>> = {};
    for (const key of keys) (actual[key.tenantId] ??= {})[key.id] = key.status;
    expect(actual).toEqual(expected);
    expect(truth.tenants).toHaveLength(TENANTS);

    // The provider's delivery history, read through the client page by page, shows the retries.
    const history: ProviderDeliveryAttempt[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: ProviderDeliveryAttempt[]; nextCursor: string | null } = await client.listDeliveries({
        hookId,
        cursor,
        limit: 250,
      });
      history.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(history).toHaveLength(s.attempts.total);
    expect(new Set(history.map((a) => a.id)).size).toBe(history.length);

    const failed = await client.listDeliveries({ hookId, status: "failed", limit: 250 });
    expect(failed.items).toHaveLength(s.attempts.lost_response);
    for (const lost of failed.items) {
      expect(lost.error).toContain("response lost");
      expect(lost.nextRetryAt).not.toBeNull();
      const { items: attemptsOfEvent } = await client.listDeliveries({ hookId, eventId: lost.eventId });
      const retry = attemptsOfEvent.find((a) => a.attempt > lost.attempt && a.trigger === "scheduled" && a.succeeded);
      expect(retry, `a successful retry after lost attempt ${lost.id}`).toBeDefined();
      expect(retry!.at.getTime()).toBeGreaterThanOrEqual(lost.nextRetryAt!.getTime());
    }

    console.log(
      `e2e: ${EVENTS} events / ${TENANTS} tenants in ${elapsedMs} ms; ${s.attempts.total} deliveries ` +
        `(${s.attempts.duplicate} duplicates, ${s.attempts.reordered} held back, ${s.attempts.lost_response} lost responses); ` +
        `ledger ${JSON.stringify(Object.fromEntries(Object.entries(byOutcome)))}`,
    );
  }, 110_000);

  it("a local revoke goes out through the outbox and is confirmed by the provider's key.revoked webhook", async () => {
    await sim.setFaults({ duplicateRate: 0, reorderRate: 0, lostResponseRate: 0 });
    const client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 });
    await ensureWebhookRegistered({ url: `http://127.0.0.1:${ingest.port}/api/webhooks/keys`, client });
    const tenantId = "district-confirm";
    const issued = await client.issueKey({ tenantId, scopes: ["rosters:read"], idempotencyKey: "confirm-issue" });
    const keyId = issued.key.id;
    const local = () => prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
    await waitUntil(async () => (await prisma.apiKey.findUnique({ where: { id: keyId } }))?.status === "active");

    // What the dashboard's revoke does: the local change and the outbox row in one transaction.
    await prisma.$transaction(async (tx) => {
      await tx.apiKey.update({
        where: { id: keyId },
        data: { status: "revoked", revokedAt: new Date(), revokeRequestedAt: new Date() },
      });
      await enqueueOutbox(
        { kind: "key.revoke", tenantId, idempotencyKey: `revoke:${keyId}`, payload: { tenantId, keyId } },
        tx,
      );
    });
    expect(await local()).toMatchObject({ status: "revoked", revokeConfirmedAt: null });

    expect(await processOutbox({ client, now: () => new Date(Date.now() + 1_000) })).toMatchObject({ sent: 1 });
    await waitUntil(async () => (await local()).revokeConfirmedAt !== null);
    expect((await local()).status).toBe("revoked");
    const truth = await sim.control<Truth>("GET", `/_sim/truth?tenant=${tenantId}`);
    expect(truth.tenants[0]!.keys).toEqual([expect.objectContaining({ id: keyId, status: "revoked" })]);
  });
});
