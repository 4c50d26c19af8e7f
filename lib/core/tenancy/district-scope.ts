// The one district scope of every read: which districts' rows an actor may see, as a Prisma
// filter and as SQL, from one function. A district admin sees their own district only; staff see
// every district but the readiness canary, whose real deliveries land in the same tables but are
// the check's business (lib/core/tenancy/canary.ts). Asking for another district, or for the
// canary, is answered like asking for something that does not exist (404), so ids do not leak.
import { tenantScope, type Actor } from "../auth/actor";
import { AppError } from "../errors";
import { Prisma } from "../../generated/prisma/client";
import { CANARY_TENANT_ID, isCanaryTenant } from "./canary";

export type DistrictScope = { kind: "district"; tenantId: string } | { kind: "every" };

/** Every district but the canary: what the background sweeps and counts look at. */
export const EVERY_DISTRICT: DistrictScope = { kind: "every" };

/** The actor's scope; `requested` narrows staff to one district (a district admin is pinned to theirs). */
export function districtScope(actor: Actor, requested?: string | null): DistrictScope {
  const tenantId = tenantScope(actor, requested);
  if (tenantId === undefined) return EVERY_DISTRICT;
  if (isCanaryTenant(tenantId)) throw new AppError("not_found", "not found");
  return { kind: "district", tenantId };
}

/** The one district, or null for staff looking at every district. */
export function scopedTenantId(scope: DistrictScope): string | null {
  return scope.kind === "district" ? scope.tenantId : null;
}

/** The Prisma filter on a non-null `tenantId` column. */
export function tenantWhere(scope: DistrictScope): { tenantId: string | { not: string } } {
  return scope.kind === "district" ? { tenantId: scope.tenantId } : { tenantId: { not: CANARY_TENANT_ID } };
}

/** The Prisma filter on the districts table itself (its `id`). */
export function districtWhere(scope: DistrictScope): { id: string | { not: string } } {
  return scope.kind === "district" ? { id: scope.tenantId } : { id: { not: CANARY_TENANT_ID } };
}

/**
 * The Prisma filter on a nullable `tenantId` column (receipts refused before the tenant was read,
 * platform-wide alerts): staff see the rows of no district too, a district admin never does.
 */
export function tenantOrNoneWhere(
  scope: DistrictScope,
): { tenantId: string } | { OR: [{ tenantId: null }, { tenantId: { not: string } }] } {
  return scope.kind === "district"
    ? { tenantId: scope.tenantId }
    : { OR: [{ tenantId: null }, { tenantId: { not: CANARY_TENANT_ID } }] };
}

/** The same as an SQL condition on `column` (a district's rows, or every row but the canary's). */
export function tenantSql(scope: DistrictScope, column: string = "tenant_id"): Prisma.Sql {
  const name = Prisma.raw(column);
  return scope.kind === "district"
    ? Prisma.sql`${name} = ${scope.tenantId}`
    : Prisma.sql`${name} IS DISTINCT FROM ${CANARY_TENANT_ID}`;
}

/** Every district's rows but the canary's, as text for statements built as text (the rollups). */
export const EVERY_DISTRICT_SQL_TEXT = `tenant_id IS DISTINCT FROM '${CANARY_TENANT_ID}'`;

/** Whether a row of `tenantId` is in the scope (for rows merged in code, like the provider's). */
export function inScope(scope: DistrictScope, tenantId: string | null): boolean {
  return scope.kind === "district" ? tenantId === scope.tenantId : !isCanaryTenant(tenantId);
}
