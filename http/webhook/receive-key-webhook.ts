import "server-only";
// POST /api/webhooks/keys: the delivery's HTTP side (method, size, signature, JSON), then the
// ingest core (lib/core/ingest/ingest-event.ts), then our answer and what we write down about it
// (record-answer.ts). `handleKeyWebhook` is the route's Request → Response, so tests and
// benchmarks drive it without a Next server. Status codes: docs/design.md, "Status codes".
import { env } from "@/lib/core/config/env";
import { ingestEvent, type DeliveryContext } from "@/lib/core/ingest/ingest-event";
import { rejected, type IngestResult } from "@/lib/core/ingest/ingest-result";
import { verifySignature } from "@/lib/core/ingest/verify-signature";
import { withSpan } from "@/lib/core/telemetry/tracing";
import { ingestResponse } from "./ingest-response";
import { readBodyWithLimit } from "./read-body";
import { recordAnswer } from "./record-answer";

export async function handleKeyWebhook(request: Request): Promise<Response> {
  const context: DeliveryContext = {
    receivedAt: new Date(),
    startedAt: performance.now(),
    webhookId: request.headers.get("webhook-id"),
    bodyBytes: 0,
    source: "provider",
    signatureVerdict: "not_checked",
  };
  const result = await receiveKeyWebhook(request, context);
  await recordAnswer(context, result);
  return ingestResponse(result);
}

/** The delivery's checks and the ingest; fills in `context` with what it learns on the way. */
async function receiveKeyWebhook(request: Request, context: DeliveryContext): Promise<IngestResult> {
  const config = env();

  if (request.method !== "POST") {
    await request.body?.cancel().catch(() => undefined);
    return rejected("method_not_allowed", `method ${request.method} not allowed; use POST`);
  }

  const body = await readBodyWithLimit(request, config.WEBHOOK_MAX_BODY_BYTES);
  context.bodyBytes = body.bytes;
  if (!body.ok && body.reason === "aborted")
    return rejected("body_aborted", `the body ended after ${body.bytes} bytes, before the request did`);
  if (!body.ok) return rejected("body_too_large", `body exceeds the limit of ${config.WEBHOOK_MAX_BODY_BYTES} bytes`);

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
        publicKeys: config.WEBHOOK_PUBLIC_KEYS,
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
      return rejected("signature_missing", "missing webhook-id, webhook-timestamp or webhook-signature header");
    case "expired":
      return rejected(
        "signature_expired",
        `webhook-timestamp is outside the ±${config.WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS} s tolerance`,
      );
    case "invalid":
      return rejected("signature_invalid", "no signature matches any configured secret");
  }

  let decoded: unknown;
  try {
    decoded = JSON.parse(body.text);
  } catch {
    return rejected("not_json", "body is not valid JSON");
  }
  return ingestEvent({ ...context, body: decoded, rawBody: body.text });
}
