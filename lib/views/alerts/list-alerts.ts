import "server-only";
// The alert center's list: everything that needs a human, newest activity first, in the actor's
// scope (alert-scope.ts), filtered by state and kind.
import { z } from "zod";
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { ALERT_KINDS, ALERT_STATES, type AlertKind, type AlertState } from "../../operations/alerts/alert-kinds";
import { districtScope, tenantOrNoneWhere } from "../../core/tenancy/district-scope";
import { describeAlert } from "../../operations/alerts/describe-alert";

export type AlertRow = {
  id: string;
  kind: string;
  subject: string;
  tenantId: string | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
  count: number;
  state: AlertState;
  summary: string;
  acknowledgedBy: string | null;
  acknowledgedAt: Date | null;
  resolvedBy: string | null;
  resolvedAt: Date | null;
  resolution: string | null;
};

/** "unresolved" (open + acknowledged) is the default view: what still needs someone. */
export const STATE_FILTERS = ["unresolved", ...ALERT_STATES, "all"] as const;
type StateFilter = (typeof STATE_FILTERS)[number];

const filtersSchema = z.object({
  state: z.enum(STATE_FILTERS, { error: "state must be one of " + STATE_FILTERS.join(", ") }).default("unresolved"),
  kind: z
    .string()
    .refine((k) => Object.hasOwn(ALERT_KINDS, k), "unknown alert kind")
    .optional(),
  limit: z.number().int().min(1).max(500).default(200),
});

type AlertFilters = { state?: string; kind?: string; limit?: number };

export async function listAlerts(
  options: { actor: Actor } & AlertFilters,
  db: DbOrTx = prisma,
): Promise<{ alerts: AlertRow[]; state: StateFilter; kind: AlertKind | null }> {
  authorize(options.actor, "alerts.view");
  const parsed = filtersSchema.safeParse({
    state: options.state || undefined,
    kind: options.kind || undefined,
    limit: options.limit,
  });
  if (!parsed.success) throw new AppError("bad_request", parsed.error.issues[0]!.message);
  const { state, kind, limit } = parsed.data;
  const stateWhere =
    state === "all" ? {} : state === "unresolved" ? { state: { in: ["open", "acknowledged"] } } : { state };
  const rows = await db.alert.findMany({
    where: { ...tenantOrNoneWhere(districtScope(options.actor)), ...stateWhere, ...(kind ? { kind } : {}) },
    orderBy: [{ lastSeenAt: "desc" }, { id: "desc" }],
    take: limit,
  });
  return { alerts: rows.map(toAlertRow), state, kind: (kind as AlertKind | undefined) ?? null };
}

/** Open alerts in scope, for the Overview's link. */
export async function countOpenAlerts(options: { actor: Actor }, db: DbOrTx = prisma): Promise<number> {
  authorize(options.actor, "alerts.view");
  return db.alert.count({ where: { ...tenantOrNoneWhere(districtScope(options.actor)), state: "open" } });
}

export function toAlertRow(row: {
  id: bigint;
  kind: string;
  subject: string;
  tenantId: string | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
  count: number;
  state: string;
  details: unknown;
  acknowledgedBy: string | null;
  acknowledgedAt: Date | null;
  resolvedBy: string | null;
  resolvedAt: Date | null;
  resolution: string | null;
}): AlertRow {
  return {
    id: row.id.toString(),
    kind: row.kind,
    subject: row.subject,
    tenantId: row.tenantId,
    firstSeenAt: row.firstSeenAt,
    lastSeenAt: row.lastSeenAt,
    count: row.count,
    state: row.state as AlertState,
    summary: describeAlert(row.kind, row.subject, row.details, row.count),
    acknowledgedBy: row.acknowledgedBy,
    acknowledgedAt: row.acknowledgedAt,
    resolvedBy: row.resolvedBy,
    resolvedAt: row.resolvedAt,
    resolution: row.resolution,
  };
}
