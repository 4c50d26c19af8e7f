import "server-only";
// Re-processes the payload we stored for an event, through the SAME ingest core as a delivery
// (source "replay"). Replaying an event we already applied therefore answers "duplicate": a replay
// can never apply a change twice.
import { prisma, type DbOrTx } from "../db";
import { AppError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import { auditActor, tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { ingestEvent } from "../ingest/ingest-event";
import { ingestStatus } from "../ingest/ingest-response";
import { jsonByteLength } from "../json/print-json";

export type ReplayResult = {
  eventId: string;
  tenantId: string;
  status: number;
  outcome: string;
  reason: string | null;
  firstOutcome: string | null;
};

export async function replayStoredEvent(
  options: { actor: Actor; tenantId: string; eventId: string },
  db: DbOrTx = prisma,
): Promise<ReplayResult> {
  authorize(options.actor, "delivery.replay");
  const tenantId = tenantScope(options.actor, options.tenantId);
  if (!tenantId) throw new AppError("not_found", "not found");
  const claim = await db.processedEvent.findUnique({
    where: { tenantId_eventId: { tenantId, eventId: options.eventId } },
  });
  if (!claim) throw new AppError("not_found", "not found");
  const audit = (outcome: string, details: Record<string, unknown>) =>
    recordAudit(
      {
        actor: auditActor(options.actor),
        action: "delivery.replay",
        tenantId,
        target: claim.eventId,
        outcome,
        details: { mode: "local", ...details },
      },
      db,
    );

  if (claim.payload === null) {
    await audit("failed", { reason: "payload purged" });
    throw new AppError(
      "conflict",
      "The stored payload was removed by retention; ask the provider to redeliver instead.",
    );
  }
  const result = await ingestEvent({
    body: claim.payload,
    rawBody: null,
    bodyBytes: jsonByteLength(claim.payload),
    receivedAt: new Date(),
    startedAt: performance.now(),
    webhookId: claim.eventId,
    source: "replay",
    signatureVerdict: "not_checked",
  });
  if (result.outcome === "rejected") {
    await audit("failed", { reason: result.error });
    throw new AppError("bad_request", `The stored payload is not a valid event: ${result.error}`);
  }
  const replay: ReplayResult = {
    eventId: claim.eventId,
    tenantId,
    status: ingestStatus(result),
    outcome: result.outcome === "unavailable" ? "failed" : result.outcome,
    reason: result.outcome === "unavailable" ? result.error : result.outcome === "duplicate" ? null : result.reason,
    firstOutcome: result.outcome === "duplicate" ? result.firstOutcome : null,
  };
  await audit(replay.outcome, { status: replay.status, reason: replay.reason, firstOutcome: replay.firstOutcome });
  return replay;
}
