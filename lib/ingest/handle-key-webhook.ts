import "server-only";
// POST /api/webhooks/keys, as a plain Request → Response function so the route file stays glue
// and tests can drive it without a Next server. Status codes: docs/design.md, "Status codes".
import { env } from "../env";
import { describeError, log } from "../log";
import { recordDelivery } from "../metrics/ingest-metrics";
import { withSpan } from "../tracing";
import { applyKeyEvent, type ApplyResult } from "./apply-key-event";
import { parseEvent, type ParsedEvent } from "./event-schema";
import { readBodyWithLimit } from "./read-body";
import { recordReceipt, type RejectedReceipt } from "./record-receipt";
import { verifySignature, type SignatureVerdict } from "./verify-signature";

const json = (status: number, body: Record<string, unknown>, headers?: Record<string, string>) =>
  Response.json(body, { status, headers: { "cache-control": "no-store", ...headers } });

function microsSince(startedAt: number): number {
  return Math.round((performance.now() - startedAt) * 1000);
}

export async function handleKeyWebhook(request: Request): Promise<Response> {
  const startedAt = performance.now();
  const receivedAt = new Date();
  const webhookId = request.headers.get("webhook-id");
  const config = env();

  const reject = async (status: number, error: string, extra: Partial<RejectedReceipt> & { bodyBytes?: number }, headers?: Record<string, string>) => {
    await storeRejection({
      receivedAt,
      webhookId,
      signatureVerdict: "not_checked",
      status,
      error,
      latencyMicros: microsSince(startedAt),
      bodyBytes: 0,
      ...extra,
    });
    recordDelivery({ status, outcome: null });
    log.info("ingest rejected", { status, error, webhook_id: webhookId, event_id: extra.eventId ?? null, tenant_id: extra.tenantId ?? null });
    return json(status, { error }, headers);
  };

  if (request.method !== "POST") {
    return reject(405, `method ${request.method} not allowed; use POST`, {}, { allow: "POST" });
  }

  const body = await readBodyWithLimit(request, config.WEBHOOK_MAX_BODY_BYTES);
  if (!body.ok) {
    return reject(413, `body exceeds the limit of ${config.WEBHOOK_MAX_BODY_BYTES} bytes`, { bodyBytes: body.bytes });
  }

  const verdict: SignatureVerdict = await withSpan("ingest.verify", () =>
    verifySignature(
      body.text,
      {
        "webhook-id": webhookId,
        "webhook-timestamp": request.headers.get("webhook-timestamp"),
        "webhook-signature": request.headers.get("webhook-signature"),
      },
      config.WEBHOOK_SECRETS,
    ),
  );
  if (verdict !== "valid") {
    const error = {
      missing: "missing webhook-id, webhook-timestamp or webhook-signature header",
      expired: "webhook-timestamp is outside the ±5 minute tolerance",
      invalid: "no signature matches any configured secret",
    }[verdict];
    return reject(401, error, { signatureVerdict: verdict, bodyBytes: body.bytes });
  }

  // PostgreSQL's jsonb cannot hold U+0000: refuse it here, or the event would fail to commit
  // (503) on every retry for ever.
  if (body.text.includes("\\u0000")) {
    return reject(400, "body contains an escaped NUL character (\\u0000), which cannot be stored", { signatureVerdict: "valid", bodyBytes: body.bytes });
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(body.text);
  } catch {
    return reject(400, "body is not valid JSON", { signatureVerdict: "valid", bodyBytes: body.bytes });
  }
  const parsed = parseEvent(decoded);
  if (!parsed.ok) {
    return reject(400, `invalid event: ${parsed.error}`, { signatureVerdict: "valid", bodyBytes: body.bytes });
  }
  const { event } = parsed.parsed;
  if (event.id !== webhookId) {
    return reject(400, "webhook-id header does not match the event id", {
      signatureVerdict: "valid",
      bodyBytes: body.bytes,
      eventId: event.id,
      tenantId: event.tenantId,
    });
  }

  return ingestParsedEvent({
    parsed: parsed.parsed,
    rawBody: body.text,
    bodyBytes: body.bytes,
    receivedAt,
    startedAt,
    webhookId,
    source: "provider",
  });
}

export type IngestParsedOptions = {
  parsed: ParsedEvent;
  rawBody: string;
  bodyBytes: number;
  receivedAt: Date;
  startedAt: number;
  webhookId: string;
  source: "provider" | "replay";
};

/** The part of ingest after authentication and validation; a local replay enters here too. */
export async function ingestParsedEvent(options: IngestParsedOptions): Promise<Response> {
  const { parsed, receivedAt, startedAt, webhookId } = options;
  const { event } = parsed;
  let result: ApplyResult;
  try {
    // The accepted delivery's receipt is written by the same statement (apply-key-event.ts).
    result = await withSpan("ingest.claim_and_apply", async (span) => {
      span.setAttributes({ "keyhook.event_id": event.id, "keyhook.tenant_id": event.tenantId });
      const applied = await applyKeyEvent({
        event,
        rawBody: options.rawBody,
        receivedAt,
        receipt: { webhookId, bodyBytes: options.bodyBytes, handlerMicros: microsSince(startedAt), source: options.source },
      });
      span.setAttribute("keyhook.outcome", applied.outcome);
      return applied;
    });
  } catch (error) {
    // Nothing was committed: tell the sender to retry. Never report an uncommitted change as done.
    log.error("ingest failed; answered 503 so the sender retries", {
      event_id: event.id,
      tenant_id: event.tenantId,
      error: describeError(error),
    });
    await storeRejection({
      receivedAt,
      webhookId,
      eventId: event.id,
      tenantId: event.tenantId,
      signatureVerdict: options.source === "replay" ? "not_checked" : "valid",
      status: 503,
      error: "could not commit; retry later",
      latencyMicros: microsSince(startedAt),
      bodyBytes: options.bodyBytes,
      source: options.source,
    });
    recordDelivery({ status: 503, outcome: null });
    return json(503, { error: "temporarily unable to process the event; retry later" }, { "retry-after": "5" });
  }

  const seconds = (performance.now() - startedAt) / 1000;
  recordDelivery({ status: 200, outcome: result.outcome, seconds });
  log.info("ingest", {
    event_id: event.id,
    tenant_id: event.tenantId,
    type: event.type,
    sequence: event.sequence,
    outcome: result.outcome,
    reason: result.reason,
    source: options.source,
    latency_ms: Math.round(seconds * 100_000) / 100,
  });
  const body: Record<string, unknown> = { outcome: result.outcome };
  if (result.reason) body.reason = result.reason;
  if (result.firstOutcome) body.first_outcome = result.firstOutcome;
  return json(200, body);
}

/** A receipt must never turn a rejection into a 500: if the database is down, we log instead. */
async function storeRejection(receipt: RejectedReceipt): Promise<void> {
  try {
    await withSpan("ingest.receipt", () => recordReceipt(receipt));
  } catch (error) {
    log.error("could not store receipt", { status: receipt.status, webhook_id: receipt.webhookId, error: describeError(error) });
  }
}
