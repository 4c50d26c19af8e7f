import "server-only";
// The ingest core, after authentication: is the body storable, is it a valid event, redact it,
// claim and apply it. A provider delivery (handle-key-webhook.ts) and a local replay
// (lib/deliveries/replay-stored-event.ts) both enter here and get a domain result back; every
// result that is not a claim leaves a receipt here too.
import { withDeadline } from "../concurrency/with-deadline";
import { prisma, type Db } from "../db";
import { describeError, log } from "../log";
import { recordDelivery } from "../metrics/ingest-metrics";
import { applyKeyEvent, type ApplyResult } from "./apply-key-event";
import { parseEvent } from "./event-schema";
import { ingestStatus } from "./ingest-response";
import type { IngestResult, RejectionReason } from "./ingest-result";
import { recordReceipt, type RejectedReceipt } from "./record-receipt";
import { admitRefusedReceipt } from "./refused-requests";
import { redactPayload } from "./redact-payload";
import { withSpan } from "../tracing";
import { describeUnstorable, findUnstorable, unstorableNumberOffset } from "./storable-json";

export type DeliveryContext = {
  receivedAt: Date;
  /** performance.now() when handling started, for the receipt's latency. */
  startedAt: number;
  webhookId: string | null;
  bodyBytes: number;
  source: "provider" | "replay";
  signatureVerdict: RejectedReceipt["signatureVerdict"];
  /** Signature telemetry for the receipt: which secret verified it (fingerprint) and the clock skew. */
  secretFingerprint?: string | null;
  clockSkewMs?: number | null;
};

export type IngestEventOptions = DeliveryContext & {
  /** The decoded body. */
  body: unknown;
  /** The exact text it was decoded from, when there is one (a delivery; a replay has only the value). */
  rawBody: string | null;
};

export function microsSince(startedAt: number): number {
  return Math.round((performance.now() - startedAt) * 1000);
}

export async function ingestEvent(options: IngestEventOptions, db: Db = prisma): Promise<IngestResult> {
  const { body, rawBody } = options;
  if (rawBody !== null) {
    const offset = unstorableNumberOffset(rawBody);
    if (offset !== -1) {
      return reject(
        options,
        "unstorable_body",
        `body contains a number out of the range PostgreSQL can store (at character ${offset})`,
      );
    }
  }
  const unstorable = findUnstorable(body);
  if (unstorable) return reject(options, "unstorable_body", describeUnstorable(unstorable));

  const parsed = parseEvent(body);
  if (!parsed.ok) return reject(options, "invalid_event", `invalid event: ${parsed.error}`);
  const { event } = parsed.parsed;
  if (event.id !== options.webhookId) {
    return reject(options, "id_mismatch", "webhook-id header does not match the event id", {
      eventId: event.id,
      tenantId: event.tenantId,
    });
  }

  // A known event matched its schema field by field already; an unknown type did not.
  const redaction = redactPayload(body, { checkShapes: parsed.parsed.kind === "unknown-type" });
  // Unchanged and already validated: the text goes to PostgreSQL as it came, no re-serialising.
  const payloadJson = !redaction.redacted && rawBody !== null ? rawBody : JSON.stringify(redaction.payload);

  let applied: ApplyResult;
  try {
    // The accepted delivery's receipt is written by the same statement (apply-key-event.ts).
    applied = await withSpan("ingest.claim_and_apply", async (span) => {
      span.setAttributes({ "keyhook.event_id": event.id, "keyhook.tenant_id": event.tenantId });
      const result = await applyKeyEvent(
        {
          event,
          payloadJson,
          receivedAt: options.receivedAt,
          receipt: {
            webhookId: event.id,
            bodyBytes: options.bodyBytes,
            handlerMicros: microsSince(options.startedAt),
            source: options.source,
            secretFingerprint: options.secretFingerprint ?? null,
            clockSkewMs: options.clockSkewMs ?? null,
          },
        },
        db,
      );
      span.setAttribute("keyhook.outcome", result.outcome);
      return result;
    });
  } catch (error) {
    // Nothing was committed: tell the sender to retry. Never report an uncommitted change as done.
    log.error("ingest failed; answered 503 so the sender retries", {
      event_id: event.id,
      tenant_id: event.tenantId,
      error: describeError(error),
    });
    const result: IngestResult = {
      outcome: "unavailable",
      error: "temporarily unable to process the event; retry later",
    };
    await storeRejection(options, result, {
      eventId: event.id,
      tenantId: event.tenantId,
      error: "could not commit; retry later",
    });
    return result;
  }

  const seconds = (performance.now() - options.startedAt) / 1000;
  recordDelivery({ status: 200, outcome: applied.outcome, seconds });
  log.info("ingest", {
    event_id: event.id,
    tenant_id: event.tenantId,
    type: event.type,
    sequence: event.sequence,
    outcome: applied.outcome,
    reason: applied.reason,
    source: options.source,
    latency_ms: Math.round(seconds * 100_000) / 100,
  });
  return applied.outcome === "duplicate"
    ? { outcome: "duplicate", firstOutcome: applied.firstOutcome }
    : { outcome: applied.outcome, reason: applied.reason };
}

/** A refusal before the claim: a receipt (size and our error text only, never the body), a metric and a log line. */
export async function reject(
  context: DeliveryContext,
  reason: RejectionReason,
  error: string,
  ids: { eventId?: string; tenantId?: string } = {},
): Promise<IngestResult> {
  const result: IngestResult = { outcome: "rejected", reason, error };
  await storeRejection(context, result, ids);
  log.info("ingest rejected", {
    status: ingestStatus(result),
    reason,
    error,
    webhook_id: context.webhookId,
    event_id: ids.eventId ?? null,
    tenant_id: ids.tenantId ?? null,
  });
  return result;
}

/**
 * How long a refusal waits for its receipt. While no standby confirms commits, the receipt's own
 * COMMIT would hold the answer as long as the outage lasts; the answer matters more.
 */
const RECEIPT_WAIT_MS = 1_000;

/** A receipt must never turn a rejection into a 500: if the database is down, we log instead. */
async function storeRejection(
  context: DeliveryContext,
  result: Extract<IngestResult, { outcome: "rejected" | "unavailable" }>,
  extra: { eventId?: string; tenantId?: string; error?: string },
): Promise<void> {
  const status = ingestStatus(result);
  recordDelivery({ status, outcome: null });
  // A cut-off body costs a client nothing to send again and again: its receipts are rate-limited.
  if (result.outcome === "rejected" && result.reason === "body_aborted" && !admitRefusedReceipt("aborted_body")) return;
  try {
    await withSpan("ingest.receipt", () =>
      withDeadline(
        recordReceipt({
          receivedAt: context.receivedAt,
          webhookId: context.webhookId,
          eventId: extra.eventId ?? null,
          tenantId: extra.tenantId ?? null,
          signatureVerdict: context.signatureVerdict,
          status,
          error: extra.error ?? result.error,
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
    log.error("could not store receipt", { status, webhook_id: context.webhookId, error: describeError(error) });
  }
}
