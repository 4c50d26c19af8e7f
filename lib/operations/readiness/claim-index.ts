import "server-only";
// Durable claims rest on ONE unique index: processed_events (tenant_id, event_id). Without it the
// claim's ON CONFLICT has nothing to conflict on and every delivery fails (or, rewritten, a retry
// is applied twice). The readiness check looks in the catalog so its message can name the fix.
import type { DbOrTx } from "../../core/db/client";

export async function claimIndexPresent(db: DbOrTx): Promise<boolean> {
  const rows = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n
    FROM pg_index i
    JOIN pg_class t ON t.oid = i.indrelid
    WHERE t.relname = 'processed_events' AND t.relnamespace = current_schema()::regnamespace
      AND i.indisunique AND i.indisvalid AND i.indpred IS NULL
      AND (SELECT array_agg(a.attname::text ORDER BY k.ord)
           FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
           JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) = ARRAY['tenant_id', 'event_id']`;
  return Number(rows[0]?.n ?? 0) > 0;
}
