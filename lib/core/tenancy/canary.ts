// The readiness check's own district. Its events are real deliveries through the real ingest, so
// they land in the same tables; every district-facing list, count and export leaves it out, and
// no user can be assigned to it (it is not a district anyone administers).
export const CANARY_TENANT_ID = "keyhook-readiness-canary";

export function isCanaryTenant(tenantId: string | null | undefined): boolean {
  return tenantId === CANARY_TENANT_ID;
}
