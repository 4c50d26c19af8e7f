import "server-only";
// The numbers on the Overview page, scoped to what the actor may see. "Today" is the UTC day.
// Staff see the whole ledger: its counts come from the hourly rollups (exact, and cheap at 10M
// rows: lib/rollups). A district's own counts are index range scans of its rows.
import { prisma, type DbOrTx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { countRollups, totalRows, type RollupCount } from "../rollups/rollup-counts";
import { countOpenQuarantine, type OpenQuarantineCount } from "../quarantine/count-open-quarantine";
import { CANARY_TENANT_ID, NOT_CANARY } from "../readiness/canary";
import { CHART_OUTCOMES, type ChartDay, type ChartOutcome } from "./outcome-chart-data";

export type Overview = {
  outcomesToday: Record<string, number>;
  duplicatesToday: number;
  /** Exact up to a bound, an estimate past it (lib/quarantine/count-open-quarantine.ts). */
  quarantineOpen: OpenQuarantineCount;
  openAlerts: number;
  activeKeys: number;
  ledgerRows: number;
  deliveriesToday: number;
  /** Share of today's deliveries we answered 2xx; null when nothing arrived. */
  deliverySuccessRate: number | null;
  /** One entry per UTC day, oldest first: how many deliveries ended in each outcome. */
  chart: ChartDay[];
  /** A district admin's own district: its name and the key it uses now (null for staff). */
  district: { id: string; name: string | null; activeKey: ActiveKeyView | null } | null;
};

export type ActiveKeyView = { id: string; prefix: string | null; scopes: string[]; activatedAt: Date | null };

export async function getOverview(
  options: { actor: Actor; days?: number; now?: Date },
  db: DbOrTx = prisma,
): Promise<Overview> {
  authorize(options.actor, "overview.view");
  const tenantId = tenantScope(options.actor);
  const now = options.now ?? new Date();
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const days = Math.min(Math.max(options.days ?? 14, 1), 90);
  const since = new Date(today.getTime() - (days - 1) * 86_400_000);
  // Unscoped (staff): every district but the readiness canary; receipts without a tenant stay.
  const tenantSql = tenantId
    ? Prisma.sql`AND tenant_id = ${tenantId}`
    : Prisma.sql`AND tenant_id IS DISTINCT FROM ${CANARY_TENANT_ID}`;
  const tenantWhere = tenantId ? { tenantId } : { tenantId: NOT_CANARY };
  // Staff figures: every rollup count in one snapshot and one statement (lib/rollups).
  const staffCounts: Promise<RollupCount[][]> = tenantId
    ? Promise.resolve([])
    : countRollups(
        [
          { source: "processed_events", from: today, to: null },
          { source: "receipts", from: today, to: null },
          { source: "processed_events", from: null, to: null, totalOnly: true },
          { source: "receipts", from: since, to: null, byDay: true },
        ],
        db,
      );
  const staff = (index: number) => staffCounts.then((counts) => counts[index]!);

  const [outcomes, receiptsToday, quarantineOpen, openAlerts, activeKeys, ledgerRows, chartRows, district] =
    await Promise.all([
      tenantId
        ? db.processedEvent
            .groupBy({ by: ["outcome"], where: { tenantId, receivedAt: { gte: today } }, _count: true })
            .then((rows) => rows.map((o) => ({ key: o.outcome, rows: o._count })))
        : staff(0),
      tenantId
        ? db.$queryRaw<{ total: bigint; ok: bigint; duplicates: bigint }[]>`
          SELECT count(*) AS total, count(*) FILTER (WHERE status BETWEEN 200 AND 299) AS ok,
                 count(*) FILTER (WHERE outcome = 'duplicate') AS duplicates
          FROM receipts WHERE received_at >= ${today}::timestamptz ${tenantSql}`.then((rows) => rows[0])
        : staff(1).then((rows) => ({
            total: BigInt(totalRows(rows)),
            ok: BigInt(rows.reduce((sum, r) => sum + r.okRows, 0)),
            duplicates: BigInt(rows.find((r) => r.key === "duplicate")?.rows ?? 0),
          })),
      countOpenQuarantine({ tenantId, excludeCanary: true }, db),
      db.apiKey.count({ where: { ...tenantWhere, status: "superseded" } }),
      tenantId ? db.apiKey.count({ where: { tenantId, status: "active" } }) : countActiveKeys(db),
      tenantId ? db.processedEvent.count({ where: { tenantId } }) : staff(2).then(totalRows),
      // Receipts, not claims: the chart shows what every delivery came to, duplicates and rejections included.
      tenantId
        ? db.$queryRaw<{ day: string; outcome: string; n: bigint }[]>`
          SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
                 CASE WHEN status >= 400 THEN 'rejected' ELSE coalesce(outcome, 'rejected') END AS outcome,
                 count(*) AS n
          FROM receipts WHERE received_at >= ${since}::timestamptz ${tenantSql}
          GROUP BY 1, 2`
        : staff(3).then((rows) => rows.map((r) => ({ day: r.day!, outcome: r.key, n: BigInt(r.rows) }))),
      tenantId
        ? db.tenant.findUnique({
            where: { id: tenantId },
            select: {
              id: true,
              name: true,
              keys: {
                where: { status: "active" },
                select: { id: true, prefix: true, scopes: true, activatedAt: true },
                take: 1,
              },
            },
          })
        : Promise.resolve(null),
    ]);

  const chart = Array.from({ length: days }, (_, i) => {
    const day = new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10);
    return { day, counts: Object.fromEntries(CHART_OUTCOMES.map((o) => [o, 0])) as Record<ChartOutcome, number> };
  });
  for (const row of chartRows) {
    const entry = chart.find((c) => c.day === row.day);
    const outcome = (CHART_OUTCOMES as readonly string[]).includes(row.outcome)
      ? (row.outcome as ChartOutcome)
      : "rejected";
    if (entry) entry.counts[outcome] += Number(row.n);
  }
  const receipts = receiptsToday ?? { total: 0n, ok: 0n, duplicates: 0n };
  const total = Number(receipts.total);
  return {
    outcomesToday: Object.fromEntries(outcomes.map((o) => [o.key, o.rows])),
    duplicatesToday: Number(receipts.duplicates),
    quarantineOpen,
    openAlerts,
    activeKeys,
    ledgerRows,
    deliveriesToday: total,
    deliverySuccessRate: total === 0 ? null : Number(receipts.ok) / total,
    chart,
    district: district ? { id: district.id, name: district.name, activeKey: district.keys[0] ?? null } : null,
  };
}

/**
 * One active key per district at most, so across 100,000 districts the exact figure costs a read
 * of 100,000 index entries for a number nobody needs to the unit: past 10,000 we show the size
 * of the one-active-key index as PostgreSQL last measured it (autovacuum/ANALYZE keep it fresh).
 */
async function countActiveKeys(db: DbOrTx): Promise<number> {
  const [row] = await db.$queryRaw<{ estimate: number }[]>`
    SELECT reltuples::float8 AS estimate FROM pg_class WHERE oid = 'api_keys_one_active_per_tenant'::regclass`;
  const estimate = Number(row?.estimate ?? -1);
  return estimate > 10_000
    ? Math.round(estimate)
    : db.apiKey.count({ where: { status: "active", tenantId: NOT_CANARY } });
}
