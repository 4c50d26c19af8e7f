import "server-only";
// The districts an actor may see, with what a human needs at a glance.
import { prisma, type DbOrTx } from "../db";
import { tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { NOT_CANARY } from "../readiness/canary";

export type DistrictSummary = {
  id: string;
  name: string | null;
  activeKeys: number;
  openAlerts: number;
  pendingRevokes: number;
  lastEventAt: Date | null;
};

export async function listDistricts(options: { actor: Actor }, db: DbOrTx = prisma): Promise<DistrictSummary[]> {
  authorize(options.actor, "districts.view");
  const tenantId = tenantScope(options.actor);
  const tenants = await db.tenant.findMany({ where: tenantId ? { id: tenantId } : { id: NOT_CANARY }, orderBy: { id: "asc" }, take: 500 });
  if (tenants.length === 0) return [];
  const ids = tenants.map((t) => t.id);
  const [keyCounts, pending, lastEvents] = await Promise.all([
    db.apiKey.groupBy({ by: ["tenantId", "status"], where: { tenantId: { in: ids }, status: { in: ["active", "superseded"] } }, _count: true }),
    db.apiKey.groupBy({ by: ["tenantId"], where: { tenantId: { in: ids }, revokeRequestedAt: { not: null }, revokeConfirmedAt: null }, _count: true }),
    db.processedEvent.groupBy({ by: ["tenantId"], where: { tenantId: { in: ids } }, _max: { receivedAt: true } }),
  ]);
  const count = (tenant: string, status: string) => keyCounts.find((k) => k.tenantId === tenant && k.status === status)?._count ?? 0;
  return tenants.map((t) => ({
    id: t.id,
    name: t.name,
    activeKeys: count(t.id, "active"),
    openAlerts: count(t.id, "superseded"),
    pendingRevokes: pending.find((p) => p.tenantId === t.id)?._count ?? 0,
    lastEventAt: lastEvents.find((e) => e.tenantId === t.id)?._max.receivedAt ?? null,
  }));
}
