// What the webhook route answers for an ingest result: the one result → status table, which the
// receipt (ingest-event.ts) and a local replay read too, so what we answered and what we wrote
// down cannot drift apart. Status codes: docs/design.md, "Status codes".
import { jsonResponse } from "../json-response";
import type { IngestResult, RejectionReason } from "../../lib/core/ingest/ingest-result";

/** A delivery we could not commit: the sender retries after this many seconds. */
const INGEST_RETRY_AFTER_SECONDS = 5;

const statusByRejection: Record<RejectionReason, number> = {
  method_not_allowed: 405,
  body_too_large: 413,
  body_aborted: 400,
  signature_missing: 401,
  signature_expired: 401,
  signature_invalid: 401,
  not_json: 400,
  unstorable_body: 400,
  invalid_event: 400,
  id_mismatch: 400,
};

export function ingestStatus(result: IngestResult): number {
  switch (result.outcome) {
    case "rejected":
      return statusByRejection[result.reason];
    case "unavailable":
      return 503;
    default:
      return 200;
  }
}

export function ingestResponse(result: IngestResult): Response {
  const headers: Record<string, string> = {};
  let body: Record<string, unknown>;
  switch (result.outcome) {
    case "rejected":
      body = { error: result.error };
      if (result.reason === "method_not_allowed") headers.allow = "POST";
      break;
    case "unavailable":
      body = { error: result.error };
      headers["retry-after"] = String(INGEST_RETRY_AFTER_SECONDS);
      break;
    case "duplicate":
      body = result.firstOutcome
        ? { outcome: "duplicate", first_outcome: result.firstOutcome }
        : { outcome: "duplicate" };
      break;
    default:
      body = result.reason ? { outcome: result.outcome, reason: result.reason } : { outcome: result.outcome };
  }
  return jsonResponse(body, { status: ingestStatus(result), headers });
}
