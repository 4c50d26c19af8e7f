// Realistic key traffic: what districts actually do with their keys. A tenant without an active
// key gets one issued; a tenant with one mostly rotates it (scheduled hygiene) and sometimes
// revokes it (a leaked key), and then issues its replacement within seconds. Used by
// POST /_sim/emit (tests: N events at once) and by the background churn of `npm run dev`.
import type { SimEvent } from "./model";
import type { SimProvider } from "./provider";
import type { SimStore } from "./store";

const SCOPE_SETS = [
  ["rosters:read"],
  ["rosters:read", "grades:read"],
  ["attendance:write"],
  ["rosters:read", "attendance:write"],
];

export function emitOne(provider: SimProvider, tenantId: string, random: () => number, revokeShare = 0.3): SimEvent {
  const active = provider.activeKey(tenantId);
  if (!active) {
    const scopes = SCOPE_SETS[Math.floor(random() * SCOPE_SETS.length)]!;
    return provider.issueKey(tenantId, scopes).event!;
  }
  return random() < revokeShare
    ? provider.revokeKey(tenantId, active.id).event!
    : provider.rotateKey(tenantId, active.id).event!;
}

export function emitMany(
  provider: SimProvider,
  options: { count: number; tenants: string[]; random: () => number },
): SimEvent[] {
  const events: SimEvent[] = [];
  for (let i = 0; i < options.count; i++) {
    const tenantId = options.tenants[Math.floor(options.random() * options.tenants.length)]!;
    events.push(emitOne(provider, tenantId, options.random));
  }
  return events;
}

/**
 * When a person last changed a tenant's keys through the provider's API (issue, rotate, revoke:
 * what the app's outbox sends for a dashboard action). The churn leaves such a tenant alone for a
 * while, so it never races a person. Rebuilt on start from the journal's idempotent answers
 * (the app sends every key call with an Idempotency-Key).
 */
export class CustomerActivity {
  private readonly lastAt = new Map<string, number>();

  static fromStore(store: SimStore): CustomerActivity {
    const activity = new CustomerActivity();
    for (const answer of store.idempotency.values()) {
      const tenantId = tenantOfKeyCall(answer.scope.split(" ")[0]!);
      if (tenantId) activity.note(tenantId, answer.at);
    }
    return activity;
  }

  note(tenantId: string, at: number): void {
    this.lastAt.set(tenantId, Math.max(at, this.lastAt.get(tenantId) ?? 0));
  }

  last(tenantId: string): number | undefined {
    return this.lastAt.get(tenantId);
  }
}

/** The tenant a key call of the provider API (`/v1/tenants/:id/keys…`) is about, else null. */
export function tenantOfKeyCall(pathname: string): string | null {
  const match = /^\/v1\/tenants\/([^/]+)\/keys(\/|$)/.exec(pathname);
  return match ? decodeURIComponent(match[1]!) : null;
}

export type ChurnOptions = {
  provider: SimProvider;
  tenants: string[];
  /** The mean time between two background operations on ONE tenant. */
  intervalMs: number;
  /** A tenant a person acted on is left alone this long after their last call. */
  quietMs: number;
  activity: CustomerActivity;
  random: () => number;
  /**
   * Every tenant's first operation within this long of the first run (the demo: each district
   * changes once in its first minute), instead of an ordinary draw for all but the first.
   */
  firstRoundMs?: number;
};

/** After a revoke, the district issues the replacement key this soon (a leaked key is replaced). */
export const REISSUE_AFTER_MS = { min: 5_000, max: 20_000 };
/** The first operation once a hook exists: soon, so a newcomer sees the stream within a minute. */
export const FIRST_EVENT_AFTER_MS = 3_000;
const REVOKE_SHARE = 0.2;

/**
 * Per-tenant churn: each tenant's next operation is due an exponential draw (mean `intervalMs`,
 * clipped to 0.1–4×) after its last one, so districts change minutes to hours apart by default.
 * Pure apart from the provider calls: the caller passes the clock (startStream runs it on timers).
 */
export class ChurnSchedule {
  private readonly due = new Map<string, number>();
  /** Tenants whose next operation never revokes: the first one, and the replacement after a revoke. */
  private readonly gentle = new Set<string>();
  private started = false;

  constructor(private readonly options: ChurnOptions) {}

  private nextAfter(now: number): number {
    const draw = -Math.log(1 - Math.min(this.options.random(), 0.999_999));
    return now + this.options.intervalMs * Math.min(Math.max(draw, 0.1), 4);
  }

  /**
   * Runs what is due at `now` and returns the events emitted. The first call (once a hook
   * exists) schedules every tenant, one of them FIRST_EVENT_AFTER_MS from now.
   */
  run(now: number): SimEvent[] {
    const { tenants, random, activity, quietMs, provider } = this.options;
    if (!this.started) {
      this.started = true;
      const first = tenants[Math.floor(random() * tenants.length)];
      const others = tenants.filter((tenantId) => tenantId !== first);
      const round = this.options.firstRoundMs;
      others.forEach((tenantId, i) =>
        this.due.set(
          tenantId,
          round === undefined
            ? this.nextAfter(now)
            : now + FIRST_EVENT_AFTER_MS + ((i + 1) * Math.max(round - FIRST_EVENT_AFTER_MS, 0)) / others.length,
        ),
      );
      if (first !== undefined) {
        this.due.set(first, now + FIRST_EVENT_AFTER_MS);
        this.gentle.add(first);
      }
      return [];
    }
    const events: SimEvent[] = [];
    for (const tenantId of tenants) {
      const due = this.due.get(tenantId)!;
      if (due > now) continue;
      const lastAction = activity.last(tenantId);
      if (lastAction !== undefined && lastAction + quietMs > now) {
        // A person changed this district's keys: wait until they are done, then start afresh.
        this.due.set(tenantId, this.nextAfter(lastAction + quietMs));
        this.gentle.delete(tenantId);
        continue;
      }
      const gentle = this.gentle.delete(tenantId);
      const event = emitOne(provider, tenantId, random, gentle ? 0 : REVOKE_SHARE);
      events.push(event);
      if (event.type === "key.revoked") {
        this.gentle.add(tenantId);
        const { min, max } = REISSUE_AFTER_MS;
        this.due.set(tenantId, now + min + random() * (max - min));
      } else {
        this.due.set(tenantId, this.nextAfter(now));
      }
    }
    return events;
  }

  /** When `run` next has something to do (null before the first run). */
  nextDueAt(): number | null {
    return this.due.size ? Math.min(...this.due.values()) : null;
  }
}

/** Runs a ChurnSchedule on timers, once at least one hook exists. */
export function startStream(
  options: ChurnOptions & {
    hasHook: () => boolean;
    onEvent?: (event: SimEvent) => void;
    now?: () => number;
  },
): { stop(): void } {
  const now = options.now ?? Date.now;
  const schedule = new ChurnSchedule(options);
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    if (options.hasHook()) for (const event of schedule.run(now())) options.onEvent?.(event);
    const next = schedule.nextDueAt();
    // At most a minute between looks: cheap, and a clock jump never stalls the churn for hours.
    const wait = next === null ? 1_000 : Math.min(Math.max(next - now(), 50), 60_000);
    timer = setTimeout(tick, wait);
    timer.unref?.();
  };
  tick();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
