import "server-only";
// Figures for the retention page: how big the ledger is, how old, how fast it grows, what the
// next purge will take and what the last one did.
//
// Row counts are exact, read from the hourly rollups plus the rows they do not hold yet
// (lib/rollups): a cost that does not grow with the table, as count(*)'s does. Bytes are pg_total_relation_size (heap + indexes + TOAST):
// a purge frees space for reuse by later inserts, it does not shrink the files, so bytes level
// off rather than drop after the first purge.
import { prisma, type DbOrTx } from "../../core/db/client";
import { toPurgeRunSummary, type PurgeRunSummary } from "../../operations/retention/purge-runs";
import { getRetentionSettings } from "../../operations/retention/settings";
import { countRollups, totalRows } from "../../operations/rollups/rollup-counts";

const DAY_MS = 86_400_000;
const GROWTH_DAYS = 14;

type RetentionStats = {
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

type Totals = { claim_bytes: bigint; receipt_bytes: bigint; oldest_claim_at: Date | null };

export async function getRetentionStats(db: DbOrTx = prisma, options: { now?: Date } = {}): Promise<RetentionStats> {
  const now = options.now ?? new Date();
  const settings = await getRetentionSettings(db);
  const cutoff = new Date(now.getTime() - settings.retentionDays * DAY_MS);
  const cutoffTomorrow = new Date(cutoff.getTime() + DAY_MS);

  const growthSince = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (GROWTH_DAYS - 1) * DAY_MS,
  );
  // Every count in one snapshot and one statement (lib/operations/rollups/rollup-counts.ts).
  const [sizes, counts] = await Promise.all([
    db.$queryRaw<Totals[]>`
      SELECT pg_total_relation_size('processed_events') AS claim_bytes,
             pg_total_relation_size('receipts') AS receipt_bytes,
             (SELECT min(received_at) FROM processed_events) AS oldest_claim_at`,
    countRollups(
      [
        { source: "processed_events", from: null, to: null, totalOnly: true },
        { source: "receipts", from: null, to: null, totalOnly: true },
        { source: "processed_events", from: cutoff, to: cutoffTomorrow, totalOnly: true },
        { source: "processed_events", from: null, to: cutoff, totalOnly: true },
        {
          source: "processed_events",
          from: growthSince,
          to: new Date(growthSince.getTime() + GROWTH_DAYS * DAY_MS),
          byDay: true,
          totalOnly: true,
        },
      ],
      db,
    ),
  ]);
  const [claimRows, receiptRows, expiring, expired] = counts.slice(0, 4).map(totalRows);
  const growthCounts = counts[4]!;
  const totals = sizes[0]!;
  const perDay = new Map<string, number>();
  for (const c of growthCounts) perDay.set(c.day!, (perDay.get(c.day!) ?? 0) + c.rows);
  const growth = Array.from({ length: GROWTH_DAYS }, (_, i) => {
    const day = new Date(growthSince.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    return { day, rows: perDay.get(day) ?? 0 };
  });

  const lastRun = await db.purgeRun.findFirst({ orderBy: [{ startedAt: "desc" }, { id: "desc" }] });

  return {
    claimRows: claimRows!,
    claimBytes: Number(totals.claim_bytes),
    receiptRows: receiptRows!,
    receiptBytes: Number(totals.receipt_bytes),
    oldestClaimAt: totals.oldest_claim_at,
    expiringNext24h: expiring!,
    expiredAwaitingPurge: expired!,
    growthPerDay: growth.map((g) => ({ day: g.day, rows: g.rows })),
    lastRun: lastRun ? toPurgeRunSummary(lastRun) : null,
  };
}
