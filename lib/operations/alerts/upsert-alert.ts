import "server-only";
// Alerts are rows a human (or a notification channel) follows by state:
// open → acknowledged → resolved. One row per (kind, subject): raising it again only refreshes
// last_seen_at and its details, and re-opens a resolved one (counting the recurrence). A raise
// with `occurrences` adds that many to the count instead (the quarantine sweep: one alert per
// misrouted key, counting its events). Re-opening clears who acknowledged or resolved it last
// time; the audit log keeps that history.
//
// A person's decision holds while the condition it was about holds (docs/decisions/0036): an
// alert a person resolved is re-opened only by a raise that reports a change (`changed`), or once
// its condition was found gone (condition_cleared_at) and came back.
import { prisma, type DbOrTx } from "../../core/db/client";
import { Prisma } from "../../generated/prisma/client";
import { SWEEP_ACTOR, type AlertState } from "./alert-kinds";

export type { AlertState };

type RaiseAlertInput = {
  kind: string;
  subject: string;
  tenantId?: string | null;
  details?: Record<string, unknown>;
  now: Date;
  /** Add this many to the count (new row: start at it) instead of counting recurrences. */
  occurrences?: number;
  /** When the new occurrences happened first (default: now), for a new row's first_seen_at. */
  firstSeenAt?: Date;
  /**
   * The condition changed since a person decided (new events, a different difference): re-open
   * even an alert a person resolved. Without it their decision holds while the condition does.
   */
  changed?: boolean;
};

/** "held": a person's decision on the alert stands, nothing was written. */
export async function raiseAlert(input: RaiseAlertInput, db: DbOrTx = prisma): Promise<"raised" | "held"> {
  const details = input.details === undefined ? null : JSON.stringify(input.details);
  const occurrences = input.occurrences ?? null;
  const firstSeenAt = input.firstSeenAt ?? input.now;
  const written = await db.$executeRaw`
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
      condition_cleared_at = NULL,
      state = CASE WHEN alerts.state = 'resolved' THEN 'open' ELSE alerts.state END
    WHERE ${input.changed ?? false}::boolean OR NOT (${DECISION_HOLDS})`;
  return written === 0 ? "held" : "raised";
}

/** A person resolved the alert and its condition has not been found gone since (SQL, on `alerts`). */
const DECISION_HOLDS = Prisma.sql`alerts.state = 'resolved' AND alerts.resolution IS DISTINCT FROM 'condition_cleared'
  AND alerts.condition_cleared_at IS NULL`;

/** The same rule, on a row already read. */
export function decisionHolds(alert: {
  state: string;
  resolution: string | null;
  conditionClearedAt: Date | null;
}): boolean {
  return alert.state === "resolved" && alert.resolution !== "condition_cleared" && alert.conditionClearedAt === null;
}

/**
 * The condition of `kind` no longer holds for `subjects`: their open alerts are resolved
 * (condition_cleared), and those a person resolved are marked as gone, which lets the purge take
 * them after ALERT_RETENTION_DAYS and a later raise re-open them. Returns how many were resolved.
 */
export async function resolveAlerts(
  input: { kind: string; subjects: string[]; now: Date; by?: string },
  db: DbOrTx = prisma,
): Promise<number> {
  if (input.subjects.length === 0) return 0;
  const subjects = Prisma.join(input.subjects);
  await db.$executeRaw`
    UPDATE alerts SET condition_cleared_at = ${input.now}::timestamptz
    WHERE kind = ${input.kind} AND state = 'resolved' AND condition_cleared_at IS NULL AND subject IN (${subjects})`;
  return db.$executeRaw`
    UPDATE alerts SET state = 'resolved', last_seen_at = ${input.now}::timestamptz,
      resolved_at = ${input.now}::timestamptz, resolved_by = ${input.by ?? SWEEP_ACTOR}, resolution = 'condition_cleared',
      condition_cleared_at = ${input.now}::timestamptz
    WHERE kind = ${input.kind} AND state <> 'resolved' AND subject IN (${subjects})`;
}

/** The alerts of `kind` a sweep still watches: open ones, and decisions whose condition may still hold. */
export const WATCHED = { OR: [{ state: { not: "resolved" } }, { conditionClearedAt: null }] };

/** Resolves every watched alert of `kind` whose subject is not in `stillTrue` (a sweep's full picture). */
export async function resolveAlertsExcept(
  input: { kind: string; stillTrue: string[]; now: Date },
  db: DbOrTx = prisma,
): Promise<number> {
  const watched = await db.alert.findMany({
    where: { kind: input.kind, ...WATCHED },
    select: { subject: true },
    take: 10_000,
  });
  const keep = new Set(input.stillTrue);
  return resolveAlerts(
    { kind: input.kind, subjects: watched.map((a) => a.subject).filter((s) => !keep.has(s)), now: input.now },
    db,
  );
}
