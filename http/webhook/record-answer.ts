import "server-only";
// What we write down about the answer to a delivery: the metric for every answer, and for a
// refusal a log line and a receipt with the status we answered (an accepted delivery's receipt is
// written by its claim's own statement: lib/core/ingest/apply-key-event.ts). A 503 for a commit
// not confirmed in time goes onto the receipt that commit may still bring, once its fate is known
// (lib/operations/rollups/record-late-answer.ts): one delivery, one receipt, saying what we answered.
import { DeadlineExceeded, withDeadline } from "@/lib/core/concurrency/with-deadline";
import { microsSince, type DeliveryContext } from "@/lib/core/ingest/ingest-event";
import type { IngestResult } from "@/lib/core/ingest/ingest-result";
import { recordReceipt } from "@/lib/core/ingest/record-receipt";
import { describeError, log } from "@/lib/core/log";
import { recordDelivery } from "@/lib/core/telemetry/ingest-metrics";
import { recordLateAnswer } from "@/lib/operations/rollups/record-late-answer";
import { withSpan } from "@/lib/core/telemetry/tracing";
import { ingestStatus } from "./ingest-response";
import { admitRefusedReceipt } from "./refused-requests";

/**
 * How long a refusal waits for its receipt. While no standby confirms commits, the receipt's own
 * COMMIT would hold the answer as long as the outage lasts; the answer matters more.
 */
const RECEIPT_WAIT_MS = 1_000;

export async function recordAnswer(context: DeliveryContext, result: IngestResult): Promise<void> {
  const status = ingestStatus(result);
  if (result.outcome !== "rejected" && result.outcome !== "unavailable") {
    recordDelivery({ status, outcome: result.outcome, seconds: microsSince(context.startedAt) / 1e6 });
    return;
  }
  recordDelivery({ status, outcome: null });
  if (result.outcome === "rejected") {
    log.info("ingest rejected", {
      status,
      reason: result.reason,
      error: result.error,
      webhook_id: context.webhookId,
      event_id: result.eventId ?? null,
      tenant_id: result.tenantId ?? null,
    });
    // A cut-off body costs a client nothing to send again and again: its receipts are rate-limited.
    if (result.reason === "body_aborted" && !admitRefusedReceipt("aborted_body")) return;
  }
  if (result.outcome === "unavailable" && result.unconfirmed) {
    recordLate(context, { ...result.unconfirmed, eventId: result.eventId, tenantId: result.tenantId }, status);
    return;
  }
  try {
    await withSpan("ingest.receipt", () =>
      withDeadline(
        recordReceipt({
          receivedAt: context.receivedAt,
          webhookId: context.webhookId,
          eventId: result.eventId ?? null,
          tenantId: result.tenantId ?? null,
          signatureVerdict: context.signatureVerdict,
          status,
          error: result.outcome === "unavailable" ? "could not commit; retry later" : result.error,
          latencyMicros: microsSince(context.startedAt),
          bodyBytes: context.bodyBytes,
          source: context.source,
          secretFingerprint: context.secretFingerprint ?? null,
          clockSkewMs: context.clockSkewMs ?? null,
        }),
        RECEIPT_WAIT_MS,
        "the receipt",
      ),
    );
  } catch (error) {
    if (error instanceof DeadlineExceeded)
      log.warn(`receipt not confirmed within ${RECEIPT_WAIT_MS / 1000} s; it may still commit`, {
        status,
        webhook_id: context.webhookId,
      });
    else log.error("could not store receipt", { status, webhook_id: context.webhookId, error: describeError(error) });
  }
}

/**
 * Writes the answer onto the receipt a late commit may bring. Not awaited: it waits for that
 * commit's fate, which the sender's answer must not. Its end is logged with what it found.
 */
function recordLate(
  context: DeliveryContext,
  unconfirmed: { receiptId: bigint; waitedMs: number; eventId?: string; tenantId?: string },
  status: number,
) {
  const fields = { status, webhook_id: context.webhookId, receipt_id: unconfirmed.receiptId.toString() };
  recordLateAnswer({
    receiptId: unconfirmed.receiptId,
    status,
    waitedMs: unconfirmed.waitedMs,
    receipt: {
      receivedAt: context.receivedAt,
      webhookId: context.webhookId?.slice(0, 200) ?? null,
      eventId: unconfirmed.eventId ?? null,
      tenantId: unconfirmed.tenantId ?? null,
      signatureVerdict: context.signatureVerdict,
      latencyMicros: Math.min(microsSince(context.startedAt), 2_147_483_647),
      bodyBytes: context.bodyBytes,
      source: context.source,
      secretFingerprint: context.secretFingerprint ?? null,
      clockSkewMs: context.clockSkewMs ?? null,
    },
  }).then(
    (found) =>
      log.info(
        found === "amended"
          ? `receipt amended: the commit landed after the ${status} answer`
          : `receipt recorded: the transaction answered ${status} never committed`,
        fields,
      ),
    (error: unknown) =>
      log.warn(`receipt of the ${status} answer not written; the late commit's receipt may say 200`, {
        ...fields,
        error: describeError(error),
      }),
  );
}
