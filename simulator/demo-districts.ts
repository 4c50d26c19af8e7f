// The demo districts start where the app's demo seed leaves them (same keys, same sequences), so
// the events the simulator streams during `npm run dev` continue that history instead of
// arriving as stale activations with sequence 1.
import { DEMO_KEY_HISTORY } from "../lib/operations/demo/demo-data";
import type { SimKey, SimTenant } from "./model";
import type { SimProvider } from "./provider";
import type { SimStore } from "./store";

/** The demo districts, in the seed's order: the tenants `npm run dev` streams events for. */
export function demoDistrictIds(): string[] {
  return [...new Set(DEMO_KEY_HISTORY.map((event) => event.tenantId))];
}

export function importDemoDistricts(store: SimStore, provider: SimProvider): string[] {
  const tenants = new Map<string, SimTenant>();
  const keys = new Map<string, SimKey>();
  const ordered = [...DEMO_KEY_HISTORY].sort((a, b) => a.sequence - b.sequence);
  for (const event of ordered) {
    const tenant = tenants.get(event.tenantId) ?? { id: event.tenantId, sequence: 0 };
    tenants.set(event.tenantId, { ...tenant, sequence: Math.max(tenant.sequence, event.sequence) });
    const at = event.occurredAt?.getTime() ?? Date.now();
    const existing = keys.get(event.keyId);
    // The seed includes a misrouted event on purpose (another district's key): not the provider's truth.
    if (existing && existing.tenantId !== event.tenantId) continue;
    if (event.type === "key.revoked") {
      if (existing) keys.set(existing.id, { ...existing, status: "revoked", updatedAt: at });
      continue;
    }
    if (event.previousKeyId) {
      const previous = keys.get(event.previousKeyId);
      if (previous)
        keys.set(previous.id, {
          ...previous,
          status: previous.status === "revoked" ? "revoked" : "rotated",
          updatedAt: at,
        });
    }
    if (!existing) {
      keys.set(event.keyId, {
        id: event.keyId,
        tenantId: event.tenantId,
        status: "active",
        prefix: event.prefix ?? `ik_live_${event.keyId.slice(-4)}`,
        scopes: event.scopes ?? ["rosters:read"],
        createdAt: at,
        updatedAt: at,
      });
    }
  }
  const imported: string[] = [];
  for (const tenant of tenants.values()) {
    if (store.tenants.has(tenant.id)) continue; // already known: its own history continues
    provider.importTenant(
      tenant,
      [...keys.values()].filter((k) => k.tenantId === tenant.id),
    );
    imported.push(tenant.id);
  }
  return imported;
}
