// The demo's background churn (simulator/stream.ts) on a simulated clock: calm per district
// (minutes to hours apart), a revoked key replaced within seconds, and never a change to a
// district a person acted on recently.
import { describe, expect, it } from "vitest";
import { seededRandom } from "@/simulator/faults";
import type { SimEvent } from "@/simulator/model";
import { SimProvider } from "@/simulator/provider";
import { SimStore } from "@/simulator/store";
import { ChurnSchedule, CustomerActivity, FIRST_EVENT_AFTER_MS, REISSUE_AFTER_MS } from "@/simulator/stream";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const TENANTS = ["district-a", "district-b", "district-c"];

function setUp(options: { intervalMs?: number; quietMs?: number; seed?: number; firstRoundMs?: number } = {}) {
  const store = SimStore.open(null);
  let clock = 0;
  const provider = new SimProvider(
    store,
    "whsec_dGVzdC1zZWNyZXQtZm9yLWNodXJu",
    () => {},
    () => clock,
  );
  for (const tenantId of [...TENANTS, "district-9001"]) provider.issueKey(tenantId, ["rosters:read"]);
  const activity = new CustomerActivity();
  const schedule = new ChurnSchedule({
    provider,
    tenants: TENANTS,
    intervalMs: options.intervalMs ?? 45 * MINUTE,
    quietMs: options.quietMs ?? HOUR,
    activity,
    random: seededRandom(options.seed ?? 4417),
    firstRoundMs: options.firstRoundMs,
  });
  /** Runs the schedule from `from` to `until` (simulated ms), returning [time, event] pairs. */
  const runUntil = (until: number, hooks: { at?: number; before?: () => void } = {}) => {
    const emitted: { at: number; event: SimEvent }[] = [];
    for (;;) {
      const next = schedule.nextDueAt() ?? clock;
      if (next > until) break;
      clock = Math.max(clock, next);
      if (hooks.at !== undefined && clock >= hooks.at) {
        hooks.before?.();
        hooks.at = undefined;
      }
      for (const event of schedule.run(clock)) emitted.push({ at: clock, event });
    }
    return emitted;
  };
  return { provider, activity, runUntil, now: () => clock };
}

describe("the demo's background churn", () => {
  it("starts with one gentle change within seconds, then changes each district minutes to hours apart", () => {
    const { runUntil, provider } = setUp();
    const day = runUntil(24 * HOUR);
    expect(day[0]!.at).toBe(FIRST_EVENT_AFTER_MS);
    expect(day[0]!.event.type).not.toBe("key.revoked");
    for (const tenantId of TENANTS) {
      const own = day.filter((e) => e.event.tenantId === tenantId);
      // About one change per 45 minutes: far from the old 20–90 s.
      expect(own.length).toBeGreaterThan(5);
      expect(own.length).toBeLessThan(100);
      for (let i = 1; i < own.length; i++) {
        const gap = own[i]!.at - own[i - 1]!.at;
        if (own[i - 1]!.event.type === "key.revoked") {
          // A revoked key is replaced at once, so the district is never left without one for long.
          expect(own[i]!.event.type).toBe("key.created");
          expect(gap).toBeLessThanOrEqual(REISSUE_AFTER_MS.max);
        } else {
          expect(gap).toBeGreaterThanOrEqual(4.5 * MINUTE);
        }
      }
      expect(provider.activeKey(tenantId)).toBeDefined();
    }
    // A district not in the list (the README's own) is never touched.
    expect(day.some((e) => e.event.tenantId === "district-9001")).toBe(false);
  });

  it("with a first round (the demo), every district changes once within it, the first within seconds", () => {
    const { runUntil } = setUp({ firstRoundMs: MINUTE });
    const firstMinute = runUntil(MINUTE);
    expect(firstMinute[0]!.at).toBe(FIRST_EVENT_AFTER_MS);
    expect(new Set(firstMinute.map((e) => e.event.tenantId))).toEqual(new Set(TENANTS));
  });

  it("leaves a district alone for the quiet period after a person changed its keys", () => {
    const { runUntil, activity, now } = setUp({ intervalMs: MINUTE, quietMs: HOUR });
    runUntil(10 * MINUTE);
    let actedAt = 0;
    const after = runUntil(3 * HOUR, {
      at: 20 * MINUTE,
      before: () => {
        actedAt = now();
        activity.note("district-b", actedAt);
      },
    });
    const touched = after.filter((e) => e.event.tenantId === "district-b").map((e) => e.at);
    expect(touched.filter((at) => at >= actedAt && at < actedAt + HOUR)).toEqual([]);
    // The others keep changing, and district-b starts again after the quiet hour.
    expect(after.filter((e) => e.event.tenantId === "district-a" && e.at < actedAt + HOUR).length).toBeGreaterThan(5);
    expect(touched.some((at) => at >= actedAt + HOUR)).toBe(true);
  });

  it("knows a person's calls after a restart: rebuilt from the journal's idempotent answers", () => {
    const store = SimStore.open(null);
    store.put({
      t: "idempotency",
      v: {
        scope: "/v1/tenants/district-b/keys/key_1/revoke revoke:key_1",
        fingerprint: "f",
        status: 200,
        body: "{}",
        at: 123,
      },
    });
    store.put({
      t: "idempotency",
      v: { scope: "/v1/account/webhooks/register r1", fingerprint: "f", status: 201, body: "{}", at: 456 },
    });
    const activity = CustomerActivity.fromStore(store);
    expect(activity.last("district-b")).toBe(123);
    expect(activity.last("district-a")).toBeUndefined();
  });
});
