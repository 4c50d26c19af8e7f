// The retry horizon the retention rule uses can never be talked down: the Retention form refuses a
// horizon below PROVIDER_RETRY_HORIZON_HOURS or below the longest retry the provider's own
// history shows, next to that field, saying which bound applies; a horizon stored below the
// floor (before the rule) is raised in force, so the purge's guard and the readiness check use
// the floor, not the stored number.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { declarationOf, executeAction } from "@/app/_lib/run-action";
import { saveRetentionAction } from "@/app/(dashboard)/retention/actions";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { createProviderClient, type ProviderDeliveryAttempt } from "@/lib/operations/provider/client";
import {
  longestRetry,
  observeProviderRetries,
  type RetryHistoryReader,
} from "@/lib/operations/provider/observe-retries";
import { checkRetention } from "@/lib/operations/readiness/step-retention";
import type { ReadinessContext } from "@/lib/operations/readiness/types";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { getRetentionSettings } from "@/lib/operations/retention/settings";
import { waitUntil } from "../../support/child-process";
import { startSimulator } from "../../support/simulator";
import { resetDatabase } from "../../support/state";

vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const admin: Actor = { id: "u-admin", email: "admin@keyhook.test", name: null, role: "platform_admin", tenantId: null };
const HOUR = 3_600_000;

function form(values: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(values)) data.set(name, value);
  return data;
}
const save = (values: Record<string, string>) =>
  executeAction(declarationOf(saveRetentionAction)!, admin, form(values));

function attempt(eventId: string, n: number, at: Date, overrides: Partial<ProviderDeliveryAttempt> = {}) {
  return {
    id: `msg_${eventId}_${n}`,
    eventId,
    tenantId: "district-1",
    attempt: n,
    trigger: "scheduled",
    statusCode: 503,
    durationMs: 5,
    responseExcerpt: null,
    error: null,
    at,
    nextRetryAt: null,
    succeeded: false,
    ...overrides,
  } satisfies ProviderDeliveryAttempt;
}

/** A provider whose history shows one event retried over `hours` (the last retry announced). */
function historyWithRetryOf(hours: number): RetryHistoryReader {
  const first = new Date(Date.now() - 2 * HOUR);
  return {
    listDeliveries: async () => ({
      items: [
        attempt("evt_slow", 1, first, { nextRetryAt: new Date(first.getTime() + HOUR) }),
        attempt("evt_slow", 2, new Date(first.getTime() + HOUR), {
          nextRetryAt: new Date(first.getTime() + hours * HOUR),
        }),
        // A person's redelivery days later is not a retry.
        attempt("evt_slow", 3, new Date(first.getTime() + 2 * HOUR), {
          trigger: "manual",
          nextRetryAt: new Date(first.getTime() + 90 * HOUR),
        }),
      ],
      nextCursor: null,
    }),
  };
}

beforeEach(resetDatabase);

describe("the Retention form", () => {
  it("refuses a horizon below PROVIDER_RETRY_HORIZON_HOURS next to that field, naming the bound, and stores nothing", async () => {
    // The window a 23 h horizon would have allowed: 48 h > 23 h + 24 h.
    const result = await save({ retentionDays: "2", retryHorizonHours: "23", payloadRetentionDays: "" });
    expect(result).toMatchObject({ ok: false, field: "retryHorizonHours" });
    expect(result.message).toBe(
      "The provider retry horizon must be at least 28 h, not 23 h: PROVIDER_RETRY_HORIZON_HOURS is 28 h; the provider's history shows no retry yet",
    );
    expect(await prisma.setting.count({ where: { key: "retention" } })).toBe(0);
    // At the bound it is accepted (with a window long enough for it).
    expect(await save({ retentionDays: "3", retryHorizonHours: "28", payloadRetentionDays: "" })).toMatchObject({
      ok: true,
    });
  });

  it("refuses a horizon below the longest retry the provider's history shows, and says that bound applies", async () => {
    await observeProviderRetries({ client: historyWithRetryOf(30.5), hookId: "hook_1", lookbackHours: 52 });
    const { horizonFloor } = await getRetentionSettings();
    expect(horizonFloor).toMatchObject({ hours: 31, bound: "provider_history", configuredHours: 28 });
    const result = await save({ retentionDays: "14", retryHorizonHours: "28", payloadRetentionDays: "" });
    expect(result).toMatchObject({ ok: false, field: "retryHorizonHours" });
    expect(result.message).toBe(
      "The provider retry horizon must be at least 31 h, not 28 h: the longest retry the provider's history shows is 30.5 h (event evt_slow), longer than PROVIDER_RETRY_HORIZON_HOURS (28 h)",
    );
    // A shorter retry seen later never lowers it.
    await observeProviderRetries({ client: historyWithRetryOf(3), hookId: "hook_1", lookbackHours: 52 });
    expect((await getRetentionSettings()).horizonFloor.hours).toBe(31);
  });
});

describe("a horizon stored below the floor", () => {
  it("is raised in force: the purge refuses the window and readiness step 4 fails on the floor", async () => {
    // As the form used to store it: 2 days with a declared 23 h horizon.
    await prisma.setting.create({ data: { key: "retention", value: { retentionDays: 2, retryHorizonHours: 23 } } });
    const settings = await getRetentionSettings();
    expect(settings).toMatchObject({ retentionDays: 2, retryHorizonHours: 28 });

    const purge = await runPurge({ trigger: "cli" });
    expect(purge.status).toBe("failed");
    expect(purge.error).toMatch(/must be longer than the provider retry horizon 28 h \+ margin 24 h = 52 h/);

    const step = await checkRetention({ db: prisma, now: () => new Date() } as ReadinessContext);
    expect(step.passed).toBe(false);
    expect(step.evidence).toMatchObject({
      retry_horizon_hours: 28,
      retry_horizon_floor: { hours: 28, bound: "configured" },
    });
  });
});

describe("the provider's history, read", () => {
  it("counts scheduled retries only, to the last one made or announced", () => {
    const now = new Date();
    expect(longestRetry([], now)).toBeNull();
    const first = new Date(now.getTime() - HOUR);
    const observed = longestRetry(
      [
        attempt("evt_a", 1, first, { nextRetryAt: new Date(first.getTime() + 5_000) }),
        attempt("evt_b", 1, first, { nextRetryAt: new Date(first.getTime() + 2 * HOUR) }),
        attempt("evt_c", 1, first, { trigger: "manual", nextRetryAt: new Date(first.getTime() + 9 * HOUR) }),
      ],
      now,
    );
    expect(observed).toMatchObject({ eventId: "evt_b", spanMs: 2 * HOUR });
  });

  it("from the simulator: the failed attempts of an event it keeps retrying", async () => {
    const sim = await startSimulator({ env: { PROVIDER_SIM_TIME_SCALE: "100000" } });
    try {
      const client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
      // Nobody listens there: every delivery fails and is retried.
      const { hookId } = await client.registerWebhook({ url: "http://127.0.0.1:9/none", idempotencyKey: "obs-hook" });
      const emitted = await sim.control<{ event_ids: string[] }>("POST", "/_sim/emit", {
        count: 1,
        tenants: ["district-obs"],
      });
      await waitUntil(async () => (await sim.stats()).attempts.failed >= 3, 50);
      const { observed, raised } = await observeProviderRetries({ client, hookId, lookbackHours: 52 });
      expect(raised).toBe(true);
      expect(observed).toMatchObject({ eventId: emitted.event_ids[0] });
      expect(observed!.spanMs).toBeGreaterThan(0);
    } finally {
      await sim.dispose();
    }
  });
});
