import "server-only";
// A request for a new key (issue, or rotate) that is on its way: staged and not yet answered, or
// answered by the provider with a key whose webhook has not reached us yet. While one is, the
// provider holds (or is about to hold) an active key of the district and would refuse a second.
import type { Tx } from "../db/client";

/** How far back a sent request whose key never arrived still counts (its webhook may be retrying). */
const SENT_WITHOUT_KEY_HOURS = 24;

export async function keyCallInFlight(
  tx: Tx,
  tenantId: string,
): Promise<{ kind: "key.issue" | "key.rotate"; at: string } | null> {
  const rows = await tx.$queryRaw<{ kind: "key.issue" | "key.rotate"; created_at: Date }[]>`
    SELECT o.kind, o.created_at FROM outbox o
    WHERE o.tenant_id = ${tenantId} AND o.kind IN ('key.issue', 'key.rotate')
      AND (o.status = 'pending'
        OR (o.status = 'sent' AND o.created_at > now() - make_interval(hours => ${SENT_WITHOUT_KEY_HOURS})
            AND o.result ? 'key_id'
            AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.tenant_id = o.tenant_id AND k.id = o.result->>'key_id')))
    ORDER BY o.created_at DESC LIMIT 1`;
  const row = rows[0];
  // Times as every page shows them: ISO, UTC (components/ui/format.ts).
  return row ? { kind: row.kind, at: `${row.created_at.toISOString().replace("T", " ").slice(0, 19)} UTC` } : null;
}
