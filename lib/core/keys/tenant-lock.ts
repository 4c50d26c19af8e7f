import "server-only";
// The one locking rule for a district's keys (docs/design.md, "Ordering and locking"): every
// transaction that changes them, or decides on them, takes the district's tenant row lock FIRST
// and reads the keys after it. The ingest (keyhook_apply_event) does it in SQL; the dashboard's
// revoke, rotate, issue and quarantine resolve do it here. Holders queue in one order (tenant,
// then keys), so they cannot deadlock, and each sees the others' committed changes: at READ
// COMMITTED every statement after the lock takes a fresh snapshot. NO KEY UPDATE is the mode the
// ingest's INSERT … ON CONFLICT DO UPDATE takes: holders exclude each other, while inserts of rows
// that merely reference the tenant (their foreign-key check takes KEY SHARE) are not held up.
import { Prisma } from "../../generated/prisma/client";
import type { Tx } from "../db/client";

/** Locks the tenant row until the transaction ends; false when there is no such tenant. */
export async function lockTenant(tx: Tx, tenantId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tenants WHERE id = ${tenantId} FOR NO KEY UPDATE`;
  return rows.length === 1;
}

/**
 * Locks the tenant row of the key `keyId` (within `tenantScope` when given) and returns the
 * tenant's id; null when there is no such key in scope. A key never changes tenant, so the key
 * read here and the key read after the lock belong to the same tenant.
 */
export async function lockTenantOfKey(
  tx: Tx,
  options: { keyId: string; tenantScope?: string },
): Promise<string | null> {
  const scope = options.tenantScope === undefined ? Prisma.empty : Prisma.sql`AND k.tenant_id = ${options.tenantScope}`;
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT t.id FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
    WHERE k.id = ${options.keyId} ${scope}
    FOR NO KEY UPDATE OF t`;
  return rows[0]?.id ?? null;
}
