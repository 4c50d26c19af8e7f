import "server-only";
// A human closes a quarantined event: what they decided is kept on the ledger row and audited.
// Resolving records a decision; it never applies the event's change (that would bypass the rules).
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError, limitedText } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, tenantScope, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { lockTenant } from "../../core/keys/tenant-lock";

export const RESOLUTIONS = {
  dismissed: "Dismissed: misrouted or contradictory, no change needed",
  escalated: "Escalated to the provider",
  fixed_upstream: "Fixed upstream; the provider re-sent a correct event",
} as const;
export type Resolution = keyof typeof RESOLUTIONS;

export async function resolveQuarantinedEvent(
  options: { actor: Actor; id: string; resolution: string; note?: string },
  db: DbOrTx = prisma,
): Promise<{ eventId: string; outcome: "resolved" | "already_resolved" }> {
  authorize(options.actor, "quarantine.resolve");
  if (!(options.resolution in RESOLUTIONS)) throw new AppError("bad_request", "Choose how this event was resolved.");
  if (!/^\d{1,19}$/.test(options.id)) throw new AppError("not_found", "not found");
  const tenantId = tenantScope(options.actor);
  const note = limitedText(options.note, 500, "note");
  return db.$transaction(async (tx) => {
    const event = await tx.processedEvent.findFirst({
      where: { id: BigInt(options.id), outcome: "quarantined", ...(tenantId ? { tenantId } : {}) },
    });
    if (!event) throw new AppError("not_found", "not found");
    // The decision is about this district's keys: taken under its tenant lock (lib/core/keys/tenant-lock.ts),
    // like every change of them. The event's row itself is settled by the conditional update below.
    await lockTenant(tx, event.tenantId);
    const updated = await tx.processedEvent.updateMany({
      where: { id: event.id, resolvedAt: null },
      data: {
        resolvedAt: new Date(),
        resolvedBy: options.actor.email,
        resolution: note ? `${options.resolution}: ${note}` : options.resolution,
      },
    });
    const outcome = updated.count === 1 ? "resolved" : "already_resolved";
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "quarantine.resolve",
        tenantId: event.tenantId,
        target: event.eventId,
        outcome: outcome === "resolved" ? "ok" : outcome,
        details: { resolution: options.resolution, note },
      },
      tx,
    );
    return { eventId: event.eventId, outcome };
  });
}
