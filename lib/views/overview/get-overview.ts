import "server-only";
// The numbers on the Overview page, scoped to what the actor may see. "Today" is the UTC day.
// Staff see the whole ledger: its counts come from the hourly rollups (exact, and cheap at 10M
// rows: lib/rollups). A district's own counts are index range scans of its rows.
import { prisma, type DbOrTx } from "../../core/db/client";
import { Prisma } from "../../generated/prisma/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { countRollups, totalRows } from "../../operations/rollups/rollup-counts";
import { countOpenQuarantine, type OpenQuarantineCount } from "../quarantine/count-open-quarantine";
import {
  districtScope,
  EVERY_DISTRICT,
  type DistrictScope,
  scopedTenantId,
  tenantSql,
  tenantWhere,
} from "../../core/tenancy/district-scope";
import { platformAdminContacts, type Contact } from "../districts/platform-admin-contacts";
import { CHART_OUTCOMES, type ChartDay, type ChartOutcome } from "./outcome-chart-data";

export type Overview = {
  outcomesToday: Record<string, number>;
  duplicatesToday: number;
  /** Exact up to a bound, an estimate past it (lib/views/quarantine/count-open-quarantine.ts). */
  quarantineOpen: OpenQuarantineCount;
  supersededKeys: number;
  activeKeys: number;
  ledgerRows: number;
  deliveriesToday: number;
  /** Share of today's deliveries we answered 2xx; null when nothing arrived. */
  deliverySuccessRate: number | null;
  /** One entry per UTC day, oldest first: how many deliveries ended in each outcome. */
  chart: ChartDay[];
  /**
   * A district admin's own district: its name, the key it uses now, and whom to ask for a new
   * one (they may not issue it themselves). Null for staff.
   */
  district: { id: string; name: string | null; activeKey: ActiveKeyView | null; platformAdmins: Contact[] } | null;
};

type ActiveKeyView = { id: string; prefix: string | null; scopes: string[]; activatedAt: Date | null };

export async function getOverview(
  options: { actor: Actor; days?: number; now?: Date },
  db: DbOrTx = prisma,
): Promise<Overview> {
  authorize(options.actor, "overview.view");
  const scope = districtScope(options.actor);
  const tenantId = scopedTenantId(scope);
  const window = overviewWindow(options);
  const [figures, quarantineOpen, supersededKeys] = await Promise.all([
    tenantId ? districtFigures(tenantId, scope, window, db) : staffFigures(window, db),
    countOpenQuarantine({ scope }, db),
    db.apiKey.count({ where: { ...tenantWhere(scope), status: "superseded" } }),
  ]);
  const receipts = figures.receiptsToday ?? { total: 0n, ok: 0n, duplicates: 0n };
  const total = Number(receipts.total);
  return {
    outcomesToday: Object.fromEntries(figures.outcomes.map((o) => [o.key, o.rows])),
    duplicatesToday: Number(receipts.duplicates),
    quarantineOpen,
    supersededKeys,
    activeKeys: figures.activeKeys,
    ledgerRows: figures.ledgerRows,
    deliveriesToday: total,
    deliverySuccessRate: total === 0 ? null : Number(receipts.ok) / total,
    chart: chartOf(window, figures.chartRows),
    district: figures.district,
  };
}

/** Today (the UTC day) and the chart's days, ending today. */
type OverviewWindow = { today: Date; since: Date; days: number };

function overviewWindow(options: { days?: number; now?: Date }): OverviewWindow {
  const now = options.now ?? new Date();
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const days = Math.min(Math.max(options.days ?? 14, 1), 90);
  const since = new Date(today.getTime() - (days - 1) * 86_400_000);
  return { today, since, days };
}

/** The figures that differ between a district's own rows and the staff's rollups. */
type ScopedFigures = {
  outcomes: { key: string; rows: number }[];
  receiptsToday: { total: bigint; ok: bigint; duplicates: bigint } | undefined;
  activeKeys: number;
  ledgerRows: number;
  chartRows: { day: string; outcome: string; n: bigint }[];
  district: Overview["district"];
};

/** A district's own counts: index range scans of its rows. */
async function districtFigures(
  tenantId: string,
  scope: DistrictScope,
  { today, since }: OverviewWindow,
  db: DbOrTx,
): Promise<ScopedFigures> {
  const inScope = Prisma.sql`AND ${tenantSql(scope)}`;
  const [outcomes, receiptsToday, activeKeys, ledgerRows, chartRows, district, contacts] = await Promise.all([
    db.processedEvent
      .groupBy({ by: ["outcome"], where: { tenantId, receivedAt: { gte: today } }, _count: true })
      .then((rows) => rows.map((o) => ({ key: o.outcome, rows: o._count }))),
    db.$queryRaw<{ total: bigint; ok: bigint; duplicates: bigint }[]>`
      SELECT count(*) AS total, count(*) FILTER (WHERE status BETWEEN 200 AND 299) AS ok,
             count(*) FILTER (WHERE outcome = 'duplicate') AS duplicates
      FROM receipts WHERE received_at >= ${today}::timestamptz ${inScope}`.then((rows) => rows[0]),
    db.apiKey.count({ where: { tenantId, status: "active" } }),
    db.processedEvent.count({ where: { tenantId } }),
    // Receipts, not claims: the chart shows what every delivery came to, duplicates and rejections included.
    db.$queryRaw<{ day: string; outcome: string; n: bigint }[]>`
      SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
             CASE WHEN status >= 400 THEN 'rejected' ELSE coalesce(outcome, 'rejected') END AS outcome,
             count(*) AS n
      FROM receipts WHERE received_at >= ${since}::timestamptz ${inScope}
      GROUP BY 1, 2`,
    db.tenant.findUnique({
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
    }),
    platformAdminContacts(db),
  ]);
  return {
    outcomes,
    receiptsToday,
    activeKeys,
    ledgerRows,
    chartRows,
    district: district
      ? { id: district.id, name: district.name, activeKey: district.keys[0] ?? null, platformAdmins: contacts }
      : null,
  };
}

/** Staff see the rows the rollups count (rollup-sources.ts): every count in one snapshot and one statement. */
async function staffFigures({ today, since }: OverviewWindow, db: DbOrTx): Promise<ScopedFigures> {
  const [[outcomes = [], receipts = [], ledger = [], chart = []], activeKeys] = await Promise.all([
    countRollups(
      [
        { source: "processed_events", from: today, to: null },
        { source: "receipts", from: today, to: null },
        { source: "processed_events", from: null, to: null, totalOnly: true },
        { source: "receipts", from: since, to: null, byDay: true },
      ],
      db,
    ),
    countActiveKeys(db),
  ]);
  return {
    outcomes: outcomes,
    receiptsToday: {
      total: BigInt(totalRows(receipts)),
      ok: BigInt(receipts.reduce((sum, r) => sum + r.okRows, 0)),
      duplicates: BigInt(receipts.find((r) => r.key === "duplicate")?.rows ?? 0),
    },
    activeKeys,
    ledgerRows: totalRows(ledger),
    chartRows: chart.map((r) => ({ day: r.day!, outcome: r.key, n: BigInt(r.rows) })),
    district: null,
  };
}

/** One entry per day of the window, oldest first; an outcome the chart does not name counts as rejected. */
function chartOf({ since, days }: OverviewWindow, rows: ScopedFigures["chartRows"]): ChartDay[] {
  const chart = Array.from({ length: days }, (_, i) => {
    const day = new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10);
    return { day, counts: Object.fromEntries(CHART_OUTCOMES.map((o) => [o, 0])) as Record<ChartOutcome, number> };
  });
  for (const row of rows) {
    const entry = chart.find((c) => c.day === row.day);
    const outcome = (CHART_OUTCOMES as readonly string[]).includes(row.outcome)
      ? (row.outcome as ChartOutcome)
      : "rejected";
    if (entry) entry.counts[outcome] += Number(row.n);
  }
  return chart;
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
    : db.apiKey.count({ where: { status: "active", ...tenantWhere(EVERY_DISTRICT) } });
}
