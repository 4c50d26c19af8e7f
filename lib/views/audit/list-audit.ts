import "server-only";
// The audit log, filtered, newest first, keyset-paginated over (at, id).
import { prisma, type DbOrTx } from "../../core/db/client";
import { Prisma } from "../../generated/prisma/client";
import { type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { encodeCursor, type KeysetCursor } from "../listing/keyset-cursor";
import type { AuditFilters } from "./audit-filters";
import {
  AUDIT_ACTION_GROUPS,
  AUDIT_OUTCOME_GROUPS,
  DEFAULT_AUDIT_ACTIONS,
  isAuditActionGroup,
  isAuditOutcomeGroup,
} from "../../core/audit/audit-words";

type AuditRow = {
  id: bigint;
  at: Date;
  actor: string;
  action: string;
  tenantId: string | null;
  target: string | null;
  outcome: string;
  details: unknown;
};

export async function listAudit(
  options: { actor: Actor; filters: AuditFilters; cursor?: KeysetCursor; limit?: number },
  db: DbOrTx = prisma,
): Promise<{ rows: AuditRow[]; nextCursor: string | null }> {
  authorize(options.actor, "audit.view");
  const { filters, cursor } = options;
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 1000);
  const conditions: Prisma.Sql[] = [];
  // A group of actions (audit-words.ts; unasked: every change but sign-ins), or one action by its name.
  const action = filters.action ?? DEFAULT_AUDIT_ACTIONS;
  if (isAuditActionGroup(action)) {
    const group: { actions?: readonly string[]; except?: readonly string[] } = AUDIT_ACTION_GROUPS[action];
    if (group.actions) conditions.push(Prisma.sql`action = ANY(${[...group.actions]}::text[])`);
    else if (group.except?.length) conditions.push(Prisma.sql`action <> ALL(${[...group.except]}::text[])`);
  } else conditions.push(Prisma.sql`action = ${action}`);
  if (filters.outcome)
    conditions.push(
      isAuditOutcomeGroup(filters.outcome)
        ? Prisma.sql`outcome = ANY(${[...AUDIT_OUTCOME_GROUPS[filters.outcome].outcomes]}::text[])`
        : Prisma.sql`outcome = ${filters.outcome}`,
    );
  if (filters.tenantId) conditions.push(Prisma.sql`tenant_id = ${filters.tenantId}`);
  if (filters.actor)
    conditions.push(Prisma.sql`actor ILIKE ${"%" + filters.actor.replace(/[\\%_]/g, (c) => "\\" + c) + "%"}`);
  if (filters.from) conditions.push(Prisma.sql`at >= ${filters.from}::timestamptz`);
  if (filters.to) conditions.push(Prisma.sql`at < ${filters.to}::timestamptz`);
  if (cursor) conditions.push(Prisma.sql`(at, id) < (${cursor.at}::timestamptz, ${cursor.id}::bigint)`);
  const where = conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
  const rows = await db.$queryRaw<
    {
      id: bigint;
      at: Date;
      actor: string;
      action: string;
      tenant_id: string | null;
      target: string | null;
      outcome: string;
      details: unknown;
    }[]
  >`
    SELECT id, at, actor, action, tenant_id, target, outcome, details FROM audit_log ${where}
    ORDER BY at DESC, id DESC LIMIT ${limit + 1}`;
  await withFailureCounts(rows, db);
  const page = rows.slice(0, limit).map((r) => ({
    id: r.id,
    at: r.at,
    actor: r.actor,
    action: r.action,
    tenantId: r.tenant_id,
    target: r.target,
    outcome: r.outcome,
    details: r.details,
  }));
  const last = page[page.length - 1];
  return { rows: page, nextCursor: rows.length > limit && last ? encodeCursor({ at: last.at, id: last.id }) : null };
}

// A failed-sign-in row stands for a whole window (lib/core/audit/record-sign-in-failure.ts): its
// details gain the window's count and last attempt, read from the counter at display time.
async function withFailureCounts(
  rows: { target: string | null; action: string; details: unknown }[],
  db: DbOrTx,
): Promise<void> {
  const keyOf = (subject: string, windowStart: string) => `${subject}|${new Date(windowStart).toISOString()}`;
  const aggregated = rows.filter(
    (r) => r.action === "sign-in" && r.target && (r.details as { aggregated?: unknown } | null)?.aggregated === true,
  );
  if (aggregated.length === 0) return;
  const counters = await db.signInFailure.findMany({
    where: {
      OR: aggregated.map((r) => ({
        subject: r.target!,
        windowStart: new Date((r.details as { windowStart: string }).windowStart),
      })),
    },
  });
  const byKey = new Map(counters.map((c) => [keyOf(c.subject, c.windowStart.toISOString()), c]));
  for (const row of aggregated) {
    const details = row.details as Record<string, unknown> & { windowStart: string };
    const counter = byKey.get(keyOf(row.target!, details.windowStart));
    if (counter)
      row.details = {
        ...details,
        failures: counter.count,
        lastAt: counter.lastAt.toISOString(),
        lastAddress: counter.lastAddress,
      };
  }
}
