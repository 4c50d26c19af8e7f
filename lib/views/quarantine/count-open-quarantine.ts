import "server-only";
// How many quarantined events wait for a human: exact while they are few, an estimate past
// OPEN_QUARANTINE_EXACT_UP_TO. An exact count walks one index entry per open event, so a storm of
// misrouted events (1.67 M open in the dashboard benchmark's storm fill) made every Overview and
// Quarantine render pay for it; past the bound nobody acts on the unit, and the pages say
// "≈ 1.67M" and say it is an estimate instead (docs/decisions/0023-bounded-counts.md).
//
// The estimate is PostgreSQL's own size of the open-quarantine partial index (pg_class.reltuples,
// kept current by autovacuum and ANALYZE). It has no per-district figure: a district past the
// bound reads "more than 10,000".
import { prisma, type DbOrTx } from "../../core/db/client";
import { scopedTenantId, tenantSql, type DistrictScope } from "../../core/tenancy/district-scope";

const OPEN_QUARANTINE_EXACT_UP_TO = 10_000;

export type OpenQuarantineCount =
  | { exact: true; value: number }
  /** More than OPEN_QUARANTINE_EXACT_UP_TO; `estimate` is null when no estimate applies. */
  | { exact: false; atLeast: number; estimate: number | null };

export async function countOpenQuarantine(
  options: { scope: DistrictScope },
  db: DbOrTx = prisma,
): Promise<OpenQuarantineCount> {
  const tenantId = scopedTenantId(options.scope);
  const [row] = await db.$queryRaw<{ open: number; estimate: number }[]>`
    SELECT (SELECT count(*)::int FROM (
              SELECT 1 FROM processed_events
              WHERE outcome = 'quarantined' AND resolved_at IS NULL AND ${tenantSql(options.scope)}
              LIMIT ${OPEN_QUARANTINE_EXACT_UP_TO + 1}::int) bounded) AS open,
           (SELECT reltuples::float8 FROM pg_class WHERE oid = 'processed_events_quarantine_open'::regclass) AS estimate`;
  const open = row?.open ?? 0;
  if (open <= OPEN_QUARANTINE_EXACT_UP_TO) return { exact: true, value: open };
  const estimate = Number(row?.estimate ?? -1);
  return {
    exact: false,
    atLeast: OPEN_QUARANTINE_EXACT_UP_TO + 1,
    // A whole-ledger figure only; one that has not caught up with the storm yet is no estimate.
    estimate: !tenantId && estimate > OPEN_QUARANTINE_EXACT_UP_TO ? Math.round(estimate) : null,
  };
}

/** The number a gauge or a threshold compares: the exact count, else the estimate, else the bound. */
export function openQuarantineFigure(count: OpenQuarantineCount): number {
  return count.exact ? count.value : (count.estimate ?? count.atLeast);
}
