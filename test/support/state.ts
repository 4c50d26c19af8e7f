// Reads the database the way the assertions need it. Tests use the real PostgreSQL, never a mock.
import { prisma } from "@/lib/core/db/client";

export async function resetDatabase(): Promise<void> {
  await prisma.$executeRawUnsafe(
    `TRUNCATE tenants, api_keys, processed_events, receipts, audit_log, audit_checkpoints, users, outbox, outbox_attempts, settings, purge_runs, sign_in_failures, sign_in_address_throttle, claim_hourly_counts, receipt_hourly_counts, sequence_gaps, alerts, readiness_runs, alert_channels, alert_notifications, drift_runs, alert_watermarks RESTART IDENTITY CASCADE`,
  );
  // The audit chain starts again from its genesis, as on a new install.
  await prisma.$executeRawUnsafe(
    `UPDATE audit_chain_head SET seq = 0, prev_hash = NULL, hash = decode(repeat('00', 32), 'hex')`,
  );
  // The sequences restart, so the rollup watermarks must too (lib/operations/rollups/fold-rollups.ts).
  await prisma.$executeRawUnsafe(`UPDATE rollup_watermarks SET folded_id = 0, pending_id = NULL, pending_at = NULL`);
}

export async function keyStatuses(tenantId: string): Promise<Record<string, string>> {
  const keys = await prisma.apiKey.findMany({ where: { tenantId }, orderBy: { id: "asc" } });
  return Object.fromEntries(keys.map((k) => [k.id, k.status]));
}

export async function activeKeyIds(tenantId: string): Promise<string[]> {
  const keys = await prisma.apiKey.findMany({ where: { tenantId, status: "active" }, select: { id: true } });
  return keys.map((k) => k.id).sort();
}

export async function highWaterMark(tenantId: string): Promise<number> {
  const tenant = await prisma.tenant.findUnique({ where: { id: tenantId } });
  return Number(tenant?.highWaterMark ?? 0);
}

export async function ledgerCount(where: { tenantId?: string; eventId?: string } = {}): Promise<number> {
  return prisma.processedEvent.count({ where });
}

export async function receiptsFor(webhookId: string | null) {
  return prisma.receipt.findMany({ where: { webhookId }, orderBy: { id: "asc" } });
}
