// Writes ledger and receipt rows at chosen times straight into the real database, so retention
// tests can place rows on either side of a cutoff without waiting for the clock.
import { prisma } from "@/lib/core/db/client";

export const DAY_MS = 86_400_000;

export type ClaimRows = {
  count: number;
  receivedAt: Date;
  tenantId?: string;
  outcome?: "applied" | "stale" | "quarantined" | "ignored";
  resolved?: boolean;
  withPayload?: boolean;
  /** Length of the payload's filler text (200): a few bytes make dense pages, the payload clear's worst case. */
  payloadFiller?: number;
};

let batch = 0;

/** Inserts `count` claims (and one receipt each) received at `receivedAt`; returns their event ids' prefix. */
export async function insertClaims(rows: ClaimRows): Promise<string> {
  const prefix = `evt_fill_${++batch}_`;
  const tenantId = rows.tenantId ?? "district-fill";
  const outcome = rows.outcome ?? "applied";
  const payload =
    rows.withPayload === false ? null : JSON.stringify({ id: "evt", note: "x".repeat(rows.payloadFiller ?? 200) });
  await prisma.$executeRaw`
    INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, payload, received_at, processed_at, resolved_at)
    SELECT ${tenantId}, ${prefix} || g, 'key.revoked', 'key_' || g, g, ${outcome}, ${payload}::jsonb,
           ${rows.receivedAt}::timestamptz, ${rows.receivedAt}::timestamptz,
           CASE WHEN ${rows.resolved ?? false} THEN ${rows.receivedAt}::timestamptz END
    FROM generate_series(1, ${rows.count}::int) AS g`;
  await prisma.$executeRaw`
    INSERT INTO receipts (received_at, webhook_id, tenant_id, event_id, signature_verdict, status, outcome)
    SELECT ${rows.receivedAt}::timestamptz, ${prefix} || g, ${tenantId}, ${prefix} || g, 'valid', 200, ${outcome}
    FROM generate_series(1, ${rows.count}::int) AS g`;
  return prefix;
}

export async function claimsWithPrefix(prefix: string): Promise<{ count: number; withPayload: number }> {
  const [row] = await prisma.$queryRaw<{ count: number; with_payload: number }[]>`
    SELECT count(*)::int AS count, count(payload)::int AS with_payload
    FROM processed_events WHERE event_id LIKE ${prefix + "%"}`;
  return { count: row!.count, withPayload: row!.with_payload };
}

export async function receiptsWithPrefix(prefix: string): Promise<number> {
  return prisma.receipt.count({ where: { eventId: { startsWith: prefix } } });
}
