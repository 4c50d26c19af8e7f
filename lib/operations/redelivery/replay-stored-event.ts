import "server-only";
// Re-processes the payload we stored for an event, through the SAME ingest core as a delivery
// (source "replay"). Replaying an event we already applied therefore answers "duplicate": a replay
// can never apply a change twice.
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, tenantScope, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { ingestEvent } from "../../core/ingest/ingest-event";
import type { IngestResult } from "../../core/ingest/ingest-result";
import { jsonByteLength } from "../../core/json/print-json";

/** What the replay came to, in the ingest's own words (a replay crosses no HTTP: no status). */
type ReplayResult = {
  eventId: string;
  tenantId: string;
  outcome: Exclude<IngestResult["outcome"], "rejected">;
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
    outcome: result.outcome,
    reason: result.outcome === "unavailable" ? result.error : result.outcome === "duplicate" ? null : result.reason,
    firstOutcome: result.outcome === "duplicate" ? result.firstOutcome : null,
  };
  await audit(replay.outcome, { reason: replay.reason, firstOutcome: replay.firstOutcome });
  return replay;
}
