import "server-only";
// Keeps the alerts of one condition-based kind equal to what holds now: a new item raises its
// alert, an item whose alert the sweep itself cleared earlier re-opens it (the condition came
// back, counted), an alert still open gets its last_seen_at refreshed, and an open alert whose
// item is gone is resolved (condition_cleared). An alert a PERSON resolved stays resolved while
// its condition keeps holding without a break, however long (docs/decisions/0036): they decided,
// and a sweep every minute must not undo it (the audit log has who and why). Once the item is
// gone the decision is marked as spent (condition_cleared_at): the purge may then take it, and
// the condition coming back re-opens it.
import type { DbOrTx } from "../../core/db/client";
import { decisionHolds, raiseAlert, resolveAlertsExcept } from "./upsert-alert";

export type ConditionItem = { subject: string; tenantId: string | null; details: Record<string, unknown> };

/** Beyond this many items the picture is partial: nothing is resolved for lack of an item. */
export const CONDITION_ITEMS_CAP = 10_000;

export async function syncConditionAlerts(
  input: { kind: string; items: ConditionItem[]; now: Date; complete?: boolean },
  db: DbOrTx,
): Promise<{ raised: number; resolved: number }> {
  const subjects = input.items.map((i) => i.subject);
  const existing =
    subjects.length === 0
      ? []
      : await db.alert.findMany({
          where: { kind: input.kind, subject: { in: subjects } },
          select: { subject: true, state: true, resolution: true, conditionClearedAt: true },
        });
  const bySubject = new Map(existing.map((a) => [a.subject, a]));
  let raised = 0;
  const stillOpen: string[] = [];
  for (const item of input.items) {
    const before = bySubject.get(item.subject);
    if (before && before.state !== "resolved") {
      stillOpen.push(item.subject);
      continue;
    }
    if (before && decisionHolds(before)) continue;
    await raiseAlert(
      { kind: input.kind, subject: item.subject, tenantId: item.tenantId, details: item.details, now: input.now },
      db,
    );
    raised++;
  }
  if (stillOpen.length > 0)
    await db.alert.updateMany({
      where: { kind: input.kind, subject: { in: stillOpen }, state: { not: "resolved" } },
      data: { lastSeenAt: input.now },
    });
  const resolved =
    input.complete === false
      ? 0
      : await resolveAlertsExcept({ kind: input.kind, stillTrue: subjects, now: input.now }, db);
  return { raised, resolved };
}
