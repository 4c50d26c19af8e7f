import "server-only";
// POST /api/webhooks/keys: the delivery's HTTP side (method, size, signature, JSON), then the
// ingest core (ingest-event.ts). `receiveKeyWebhook` returns a domain result; `handleKeyWebhook`
// is the route's Request → Response, so tests and benchmarks drive it without a Next server.
// Status codes: docs/design.md, "Status codes".
import { env } from "../env";
import { ingestEvent, reject, type DeliveryContext } from "./ingest-event";
import { ingestResponse } from "./ingest-response";
import type { IngestResult } from "./ingest-result";
import { readBodyWithLimit } from "./read-body";
import { withSpan } from "../tracing";
import { verifySignature } from "./verify-signature";

export async function handleKeyWebhook(request: Request): Promise<Response> {
  return ingestResponse(await receiveKeyWebhook(request));
}

export async function receiveKeyWebhook(request: Request): Promise<IngestResult> {
  const context: DeliveryContext = {
    receivedAt: new Date(),
    startedAt: performance.now(),
    webhookId: request.headers.get("webhook-id"),
    bodyBytes: 0,
    source: "provider",
    signatureVerdict: "not_checked",
  };
  const config = env();

  if (request.method !== "POST") {
    await request.body?.cancel().catch(() => undefined);
    return reject(context, "method_not_allowed", `method ${request.method} not allowed; use POST`);
  }

  const body = await readBodyWithLimit(request, config.WEBHOOK_MAX_BODY_BYTES);
  context.bodyBytes = body.bytes;
  if (!body.ok && body.reason === "aborted")
    return reject(context, "body_aborted", `the body ended after ${body.bytes} bytes, before the request did`);
  if (!body.ok)
    return reject(context, "body_too_large", `body exceeds the limit of ${config.WEBHOOK_MAX_BODY_BYTES} bytes`);

  const signature = await withSpan("ingest.verify", () =>
    verifySignature(
      body.text,
      {
        "webhook-id": context.webhookId,
        "webhook-timestamp": request.headers.get("webhook-timestamp"),
        "webhook-signature": request.headers.get("webhook-signature"),
      },
      {
        secrets: config.WEBHOOK_SECRETS,
        toleranceSeconds: config.WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS,
        receivedAt: context.receivedAt,
      },
    ),
  );
  const { verdict } = signature;
  context.signatureVerdict = verdict;
  context.secretFingerprint = signature.secretFingerprint;
  context.clockSkewMs = signature.clockSkewMs;
  switch (verdict) {
    case "missing":
      return reject(context, "signature_missing", "missing webhook-id, webhook-timestamp or webhook-signature header");
    case "expired":
      return reject(
        context,
        "signature_expired",
        `webhook-timestamp is outside the ±${config.WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS} s tolerance`,
      );
    case "invalid":
      return reject(context, "signature_invalid", "no signature matches any configured secret");
  }

  let decoded: unknown;
  try {
    decoded = JSON.parse(body.text);
  } catch {
    return reject(context, "not_json", "body is not valid JSON");
  }
  return ingestEvent({ ...context, body: decoded, rawBody: body.text });
}
