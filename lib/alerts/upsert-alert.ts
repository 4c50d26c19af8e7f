import "server-only";
// Alerts are rows a human (or a notification channel) follows by state:
// open → acknowledged → resolved. One row per (kind, subject): raising it again only refreshes
// last_seen_at and its details, and re-opens a resolved one (counting the recurrence). A raise
// with `occurrences` adds that many to the count instead (the quarantine sweep: one alert per
// misrouted key, counting its events). Re-opening clears who acknowledged or resolved it last
// time; the audit log keeps that history.
import { prisma, type DbOrTx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { SWEEP_ACTOR, type AlertState } from "./alert-kinds";

export type { AlertState };

export type RaiseAlertInput = {
  kind: string;
  subject: string;
  tenantId?: string | null;
  details?: Record<string, unknown>;
  now: Date;
  /** Add this many to the count (new row: start at it) instead of counting recurrences. */
  occurrences?: number;
  /** When the new occurrences happened first (default: now), for a new row's first_seen_at. */
  firstSeenAt?: Date;
};

export async function raiseAlert(input: RaiseAlertInput, db: DbOrTx = prisma): Promise<void> {
  const details = input.details === undefined ? null : JSON.stringify(input.details);
  const occurrences = input.occurrences ?? null;
  const firstSeenAt = input.firstSeenAt ?? input.now;
  await db.$executeRaw`
    INSERT INTO alerts (kind, subject, tenant_id, first_seen_at, last_seen_at, count, state, details)
    VALUES (${input.kind}, ${input.subject}, ${input.tenantId ?? null}, ${firstSeenAt}::timestamptz,
            ${input.now}::timestamptz, COALESCE(${occurrences}::int, 1), 'open', ${details}::jsonb)
    ON CONFLICT (kind, subject) DO UPDATE SET
      last_seen_at = GREATEST(alerts.last_seen_at, EXCLUDED.last_seen_at),
      details = EXCLUDED.details,
      count = alerts.count + COALESCE(${occurrences}::int, CASE WHEN alerts.state = 'resolved' THEN 1 ELSE 0 END),
      acknowledged_at = CASE WHEN alerts.state = 'resolved' THEN NULL ELSE alerts.acknowledged_at END,
      acknowledged_by = CASE WHEN alerts.state = 'resolved' THEN NULL ELSE alerts.acknowledged_by END,
      resolved_at = CASE WHEN alerts.state = 'resolved' THEN NULL ELSE alerts.resolved_at END,
      resolved_by = CASE WHEN alerts.state = 'resolved' THEN NULL ELSE alerts.resolved_by END,
      resolution = CASE WHEN alerts.state = 'resolved' THEN NULL ELSE alerts.resolution END,
      note = CASE WHEN alerts.state = 'resolved' THEN NULL ELSE alerts.note END,
      state = CASE WHEN alerts.state = 'resolved' THEN 'open' ELSE alerts.state END`;
}

/** Resolves the still-open alerts of `kind` among `subjects`: their condition no longer holds. */
export async function resolveAlerts(
  input: { kind: string; subjects: string[]; now: Date; by?: string },
  db: DbOrTx = prisma,
): Promise<number> {
  if (input.subjects.length === 0) return 0;
  return db.$executeRaw`
    UPDATE alerts SET state = 'resolved', last_seen_at = ${input.now}::timestamptz,
      resolved_at = ${input.now}::timestamptz, resolved_by = ${input.by ?? SWEEP_ACTOR}, resolution = 'condition_cleared'
    WHERE kind = ${input.kind} AND state <> 'resolved' AND subject IN (${Prisma.join(input.subjects)})`;
}

/** Resolves every open alert of `kind` whose subject is not in `stillTrue` (a sweep's full picture). */
export async function resolveAlertsExcept(
  input: { kind: string; stillTrue: string[]; now: Date },
  db: DbOrTx = prisma,
): Promise<number> {
  const open = await db.alert.findMany({
    where: { kind: input.kind, state: { not: "resolved" } },
    select: { subject: true },
    take: 10_000,
  });
  const keep = new Set(input.stillTrue);
  return resolveAlerts(
    { kind: input.kind, subjects: open.map((a) => a.subject).filter((s) => !keep.has(s)), now: input.now },
    db,
  );
}
