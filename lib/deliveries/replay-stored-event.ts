import "server-only";
// Re-processes the payload we stored for an event, through the SAME ingest path as a delivery
// (source "replay"). Replaying an event we already applied therefore answers "duplicate": a replay
// can never apply a change twice.
import { prisma, type DbOrTx } from "../db";
import { AppError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import { auditActor, tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { parseEvent } from "../ingest/event-schema";
import { ingestParsedEvent } from "../ingest/handle-key-webhook";

export type ReplayResult = { eventId: string; tenantId: string; status: number; outcome: string; reason: string | null; firstOutcome: string | null };

export async function replayStoredEvent(options: { actor: Actor; tenantId: string; eventId: string }, db: DbOrTx = prisma): Promise<ReplayResult> {
  authorize(options.actor, "delivery.replay");
  const tenantId = tenantScope(options.actor, options.tenantId);
  if (!tenantId) throw new AppError("not_found", "not found");
  const claim = await db.processedEvent.findUnique({ where: { tenantId_eventId: { tenantId, eventId: options.eventId } } });
  if (!claim) throw new AppError("not_found", "not found");
  const audit = (outcome: string, details: Record<string, unknown>) =>
    recordAudit({ actor: auditActor(options.actor), action: "delivery.replay", tenantId, target: claim.eventId, outcome, details: { mode: "local", ...details } }, db);

  if (claim.payload === null) {
    await audit("failed", { reason: "payload purged" });
    throw new AppError("conflict", "The stored payload was removed by retention; ask the provider to redeliver instead.");
  }
  const rawBody = JSON.stringify(claim.payload);
  const parsed = parseEvent(claim.payload);
  if (!parsed.ok) {
    await audit("failed", { reason: parsed.error });
    throw new AppError("bad_request", `The stored payload is not a valid event: ${parsed.error}`);
  }
  const response = await ingestParsedEvent({
    parsed: parsed.parsed,
    rawBody,
    bodyBytes: Buffer.byteLength(rawBody),
    receivedAt: new Date(),
    startedAt: performance.now(),
    webhookId: claim.eventId,
    source: "replay",
  });
  const body = (await response.json()) as { outcome?: string; reason?: string; first_outcome?: string; error?: string };
  const result: ReplayResult = {
    eventId: claim.eventId,
    tenantId,
    status: response.status,
    outcome: body.outcome ?? "failed",
    reason: body.reason ?? body.error ?? null,
    firstOutcome: body.first_outcome ?? null,
  };
  await audit(result.outcome, { status: result.status, reason: result.reason, firstOutcome: result.firstOutcome });
  return result;
}
