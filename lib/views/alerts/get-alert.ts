import "server-only";
// One alert for its detail view: what was recorded, the ledger events and receipts that explain
// it (for an alert about a key: every claim naming the key, and our answers to those deliveries),
// and the actions this actor may take on it.
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { availableActions, type AlertActions } from "../../operations/alerts/alert-actions";
import { districtScope, tenantOrNoneWhere } from "../../core/tenancy/district-scope";
import { toAlertRow, type AlertRow } from "./list-alerts";

type AlertEvidence = {
  events: {
    id: string;
    eventId: string;
    type: string;
    keyId: string | null;
    previousKeyId: string | null;
    sequence: number | null;
    outcome: string;
    reason: string | null;
    receivedAt: Date;
  }[];
  receipts: {
    id: string;
    eventId: string | null;
    status: number;
    outcome: string | null;
    error: string | null;
    receivedAt: Date;
  }[];
};

export type AlertDetail = AlertRow & {
  details: Record<string, unknown>;
  note: string | null;
  /** When the condition was last found gone; null while it holds (a person's decision then stands). */
  conditionClearedAt: Date | null;
  evidence: AlertEvidence;
  /** What this actor may do now; empty once resolved. */
  actions: AlertActions;
};

export async function getAlert(options: { actor: Actor; id: string }, db: DbOrTx = prisma): Promise<AlertDetail> {
  authorize(options.actor, "alerts.view");
  if (!/^\d{1,19}$/.test(options.id)) throw new AppError("not_found", "not found");
  const row = await db.alert.findFirst({
    where: { AND: [{ id: BigInt(options.id) }, tenantOrNoneWhere(districtScope(options.actor))] },
  });
  if (!row) throw new AppError("not_found", "not found");
  const details = (row.details ?? {}) as Record<string, unknown>;
  const keyId = typeof details.key_id === "string" ? details.key_id : null;
  return {
    ...toAlertRow(row),
    details,
    note: row.note,
    conditionClearedAt: row.conditionClearedAt,
    evidence: keyId && row.tenantId ? await evidenceForKey(row.tenantId, keyId, db) : { events: [], receipts: [] },
    actions: availableActions(options.actor, row.kind, row.state, details),
  };
}

async function evidenceForKey(tenantId: string, keyId: string, db: DbOrTx): Promise<AlertEvidence> {
  const events = await db.processedEvent.findMany({
    where: { tenantId, OR: [{ keyId }, { previousKeyId: keyId }] },
    orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
    take: 20,
    select: {
      id: true,
      eventId: true,
      type: true,
      keyId: true,
      previousKeyId: true,
      sequence: true,
      outcome: true,
      reason: true,
      receivedAt: true,
    },
  });
  const receipts =
    events.length === 0
      ? []
      : await db.receipt.findMany({
          where: { tenantId, eventId: { in: events.map((e) => e.eventId) } },
          orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
          take: 50,
          select: { id: true, eventId: true, status: true, outcome: true, error: true, receivedAt: true },
        });
  return {
    events: events.map((e) => ({
      ...e,
      id: e.id.toString(),
      sequence: e.sequence === null ? null : Number(e.sequence),
    })),
    receipts: receipts.map((r) => ({ ...r, id: r.id.toString() })),
  };
}
