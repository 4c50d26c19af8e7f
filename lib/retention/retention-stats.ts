import "server-only";
// Figures for the retention page: how big the ledger is, how old, how fast it grows, what the
// next purge will take and what the last one did.
//
// Row counts are exact (count(*)): on a million-row ledger that is a fraction of a second, fine
// for an admin page that nobody polls. Bytes are pg_total_relation_size (heap + indexes + TOAST):
// a purge frees space for reuse by later inserts, it does not shrink the files, so bytes level
// off rather than drop after the first purge.
import { prisma, type DbOrTx } from "../db";
import { toPurgeRunSummary, type PurgeRunSummary } from "./purge-runs";
import { getRetentionSettings } from "./settings";

const DAY_MS = 86_400_000;
const GROWTH_DAYS = 14;

export type RetentionStats = {
  claimRows: number;
  claimBytes: number;
  receiptRows: number;
  receiptBytes: number;
  oldestClaimAt: Date | null;
  /** Claims whose window ends within the next 24 hours. */
  expiringNext24h: number;
  /** Claims already past the window, waiting for the next purge (or kept: an unresolved quarantine). */
  expiredAwaitingPurge: number;
  /** Claims received per UTC day, the last 14 days, oldest first, days without claims included. */
  growthPerDay: { day: string; rows: number }[];
  lastRun: PurgeRunSummary | null;
};

type Totals = {
  claim_rows: bigint;
  claim_bytes: bigint;
  receipt_rows: bigint;
  receipt_bytes: bigint;
  oldest_claim_at: Date | null;
  expiring_next_24h: bigint;
  expired_awaiting_purge: bigint;
};

export async function getRetentionStats(db: DbOrTx = prisma, options: { now?: Date } = {}): Promise<RetentionStats> {
  const now = options.now ?? new Date();
  const settings = await getRetentionSettings(db);
  const cutoff = new Date(now.getTime() - settings.retentionDays * DAY_MS);
  const cutoffTomorrow = new Date(cutoff.getTime() + DAY_MS);

  const [totals] = await db.$queryRaw<Totals[]>`
    SELECT (SELECT count(*) FROM processed_events) AS claim_rows,
           pg_total_relation_size('processed_events') AS claim_bytes,
           (SELECT count(*) FROM receipts) AS receipt_rows,
           pg_total_relation_size('receipts') AS receipt_bytes,
           (SELECT min(received_at) FROM processed_events) AS oldest_claim_at,
           (SELECT count(*) FROM processed_events
             WHERE received_at >= ${cutoff} AND received_at < ${cutoffTomorrow}) AS expiring_next_24h,
           (SELECT count(*) FROM processed_events WHERE received_at < ${cutoff}) AS expired_awaiting_purge`;

  const growth = await db.$queryRaw<{ day: string; rows: number }[]>`
    WITH days AS (
      SELECT d::timestamp AS day
      FROM generate_series(date_trunc('day', ${now}::timestamptz AT TIME ZONE 'UTC') - make_interval(days => ${GROWTH_DAYS - 1}),
                           date_trunc('day', ${now}::timestamptz AT TIME ZONE 'UTC'), interval '1 day') AS d
    )
    SELECT to_char(days.day, 'YYYY-MM-DD') AS day, count(pe.id)::int AS rows
    FROM days
    LEFT JOIN processed_events pe
      ON pe.received_at >= (days.day AT TIME ZONE 'UTC') AND pe.received_at < ((days.day + interval '1 day') AT TIME ZONE 'UTC')
    GROUP BY days.day
    ORDER BY days.day`;

  const lastRun = await db.purgeRun.findFirst({ orderBy: [{ startedAt: "desc" }, { id: "desc" }] });

  return {
    claimRows: Number(totals!.claim_rows),
    claimBytes: Number(totals!.claim_bytes),
    receiptRows: Number(totals!.receipt_rows),
    receiptBytes: Number(totals!.receipt_bytes),
    oldestClaimAt: totals!.oldest_claim_at,
    expiringNext24h: Number(totals!.expiring_next_24h),
    expiredAwaitingPurge: Number(totals!.expired_awaiting_purge),
    growthPerDay: growth.map((g) => ({ day: g.day, rows: g.rows })),
    lastRun: lastRun ? toPurgeRunSummary(lastRun) : null,
  };
}
