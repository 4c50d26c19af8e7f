import "server-only";
// Alerts are rows a human (or, later, a notification channel) follows by state:
// open → acknowledged → resolved. One row per (kind, subject): raising it again only refreshes
// last_seen_at and its details, and re-opens a resolved one (counting the recurrence).
import { prisma, type DbOrTx } from "../db";
import { Prisma } from "../generated/prisma/client";

export type AlertState = "open" | "acknowledged" | "resolved";

export type RaiseAlertInput = {
  kind: string;
  subject: string;
  tenantId?: string | null;
  details?: Record<string, unknown>;
  now: Date;
};

export async function raiseAlert(input: RaiseAlertInput, db: DbOrTx = prisma): Promise<void> {
  const details = input.details === undefined ? null : JSON.stringify(input.details);
  await db.$executeRaw`
    INSERT INTO alerts (kind, subject, tenant_id, first_seen_at, last_seen_at, count, state, details)
    VALUES (${input.kind}, ${input.subject}, ${input.tenantId ?? null}, ${input.now}::timestamptz, ${input.now}::timestamptz, 1, 'open', ${details}::jsonb)
    ON CONFLICT (kind, subject) DO UPDATE SET
      last_seen_at = EXCLUDED.last_seen_at,
      details = EXCLUDED.details,
      count = alerts.count + CASE WHEN alerts.state = 'resolved' THEN 1 ELSE 0 END,
      state = CASE WHEN alerts.state = 'resolved' THEN 'open' ELSE alerts.state END`;
}

export async function resolveAlerts(
  input: { kind: string; subjects: string[]; now: Date },
  db: DbOrTx = prisma,
): Promise<number> {
  if (input.subjects.length === 0) return 0;
  return db.$executeRaw`
    UPDATE alerts SET state = 'resolved', last_seen_at = ${input.now}::timestamptz
    WHERE kind = ${input.kind} AND state <> 'resolved' AND subject IN (${Prisma.join(input.subjects)})`;
}
