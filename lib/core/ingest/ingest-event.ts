import "server-only";
// The ingest core, after authentication: is the body storable, is it a valid event, redact it,
// claim and apply it. A provider delivery (http/webhook/receive-key-webhook.ts) and a local replay
// (lib/operations/redelivery/replay-stored-event.ts) both enter here and get a domain result
// back. An accepted delivery's receipt is written by the claim's own statement; a refusal's is the
// edge's to write, with the status it answered.
import { prisma, type Db } from "../db/client";
import { describeError, log } from "../log";
import { withSpan } from "../telemetry/tracing";
import { applyKeyEvent, CommitNotConfirmed, type ApplyResult } from "./apply-key-event";
import { parseEvent, type KeyEvent, type UnknownTypeEvent } from "./event-schema";
import { rejected, type IngestResult } from "./ingest-result";
import { redactPayload } from "./redact-payload";
import type { SignatureVerdict } from "./verify-signature";
import { describeUnstorable, findUnstorable, unstorableNumberOffset } from "./storable-json";

export type DeliveryContext = {
  receivedAt: Date;
  /** performance.now() when handling started, for the receipt's latency. */
  startedAt: number;
  webhookId: string | null;
  bodyBytes: number;
  source: "provider" | "replay";
  signatureVerdict: SignatureVerdict | "not_checked";
  /** Signature telemetry for the receipt: which secret verified it (fingerprint) and the clock skew. */
  secretFingerprint?: string | null;
  clockSkewMs?: number | null;
};

type IngestEventOptions = DeliveryContext & {
  /** The decoded body. */
  body: unknown;
  /** The exact text it was decoded from, when there is one (a delivery; a replay has only the value). */
  rawBody: string | null;
};

export function microsSince(startedAt: number): number {
  return Math.round((performance.now() - startedAt) * 1000);
}

export async function ingestEvent(options: IngestEventOptions, db: Db = prisma): Promise<IngestResult> {
  const unstorable = unstorableReason(options.body, options.rawBody);
  if (unstorable) return rejected("unstorable_body", unstorable);
  const parsed = parseEvent(options.body);
  if (!parsed.ok) return rejected("invalid_event", `invalid event: ${parsed.error}`);
  const { event } = parsed.parsed;
  if (event.id !== options.webhookId) {
    return rejected("id_mismatch", "webhook-id header does not match the event id", idsOf(event));
  }

  const payloadJson = storedPayload(options, parsed.parsed.kind);
  let applied: ApplyResult;
  try {
    applied = await claimAndApply(event, payloadJson, options, db);
  } catch (error) {
    return notCommitted(event, error);
  }
  logIngest(event, applied, options);
  return applied.outcome === "duplicate"
    ? { outcome: "duplicate", firstOutcome: applied.firstOutcome }
    : { outcome: applied.outcome, reason: applied.reason };
}

type IngestedEvent = KeyEvent | UnknownTypeEvent;

const idsOf = (event: IngestedEvent) => ({ eventId: event.id, tenantId: event.tenantId });

/** Why PostgreSQL could not store the body (a number out of its range, a character it refuses), or null. */
function unstorableReason(body: unknown, rawBody: string | null): string | null {
  if (rawBody !== null) {
    const offset = unstorableNumberOffset(rawBody);
    if (offset !== -1) return `body contains a number out of the range PostgreSQL can store (at character ${offset})`;
  }
  const unstorable = findUnstorable(body);
  return unstorable ? describeUnstorable(unstorable) : null;
}

/** The ledger payload's JSON text, redacted. */
function storedPayload(options: IngestEventOptions, kind: "key" | "unknown-type"): string {
  // A known event matched its schema field by field already; an unknown type did not.
  const redaction = redactPayload(options.body, { checkShapes: kind === "unknown-type" });
  // Unchanged and already validated: the text goes to PostgreSQL as it came, no re-serialising.
  return !redaction.redacted && options.rawBody !== null ? options.rawBody : JSON.stringify(redaction.payload);
}

/** The claim and its change; the accepted delivery's receipt is written by the same statement (apply-key-event.ts). */
function claimAndApply(
  event: IngestedEvent,
  payloadJson: string,
  options: IngestEventOptions,
  db: Db,
): Promise<ApplyResult> {
  return withSpan("ingest.claim_and_apply", async (span) => {
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
}

/**
 * Nothing was committed, or not in time: the sender must retry. Never report an unconfirmed
 * change as done, and log only what is known.
 */
function notCommitted(event: IngestedEvent, error: unknown): IngestResult {
  const unavailable = {
    outcome: "unavailable",
    error: "temporarily unable to process the event; retry later",
    ...idsOf(event),
  } as const;
  if (error instanceof CommitNotConfirmed) {
    log.warn(`ingest not confirmed within ${error.waitedMs} ms; it may still commit`, {
      event_id: event.id,
      tenant_id: event.tenantId,
      receipt_id: error.receiptId.toString(),
      error: describeError(error.cause),
    });
    return { ...unavailable, unconfirmed: { receiptId: error.receiptId, waitedMs: error.waitedMs } };
  }
  log.error("ingest failed: not committed", {
    event_id: event.id,
    tenant_id: event.tenantId,
    error: describeError(error),
  });
  return unavailable;
}

function logIngest(event: IngestedEvent, applied: ApplyResult, options: IngestEventOptions): void {
  log.info("ingest", {
    event_id: event.id,
    tenant_id: event.tenantId,
    type: event.type,
    sequence: event.sequence,
    outcome: applied.outcome,
    reason: applied.reason,
    source: options.source,
    latency_ms: Math.round(microsSince(options.startedAt) / 10) / 100,
  });
}
