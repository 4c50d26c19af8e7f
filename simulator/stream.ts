// Realistic key traffic: what districts actually do with their keys. A tenant without an active
// key gets one issued; a tenant with one mostly rotates it (scheduled hygiene) and sometimes
// revokes it (a leaked key), after which the next operation issues a new one. Used by
// POST /_sim/emit (tests: N events at once) and by the slow background stream of `npm run dev`.
import type { SimEvent } from "./model";
import type { SimProvider } from "./provider";

const SCOPE_SETS = [
  ["rosters:read"],
  ["rosters:read", "grades:read"],
  ["attendance:write"],
  ["rosters:read", "attendance:write"],
];

export function emitOne(provider: SimProvider, tenantId: string, random: () => number): SimEvent {
  const active = provider.activeKey(tenantId);
  if (!active) {
    const scopes = SCOPE_SETS[Math.floor(random() * SCOPE_SETS.length)]!;
    return provider.issueKey(tenantId, scopes).event!;
  }
  return random() < 0.7
    ? provider.rotateKey(tenantId, active.id).event!
    : provider.revokeKey(tenantId, active.id).event!;
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

/** One operation every interval (±50 %) on a random tenant, once at least one hook exists. */
export function startStream(options: {
  provider: SimProvider;
  tenants: string[];
  intervalMs: number;
  hasHook: () => boolean;
  random: () => number;
  onEvent?: (event: SimEvent) => void;
}): { stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const tick = (first: boolean) => {
    // The first event comes soon after a hook appears, so a newcomer sees one within a minute.
    const wait = first ? Math.min(options.intervalMs, 3_000) : options.intervalMs * (0.5 + options.random());
    timer = setTimeout(() => {
      if (stopped) return;
      if (!options.hasHook()) return tick(true);
      const tenantId = options.tenants[Math.floor(options.random() * options.tenants.length)]!;
      options.onEvent?.(emitOne(options.provider, tenantId, options.random));
      tick(false);
    }, wait);
  };
  tick(true);
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
