// The one place that turns domain values into HTTP: ingest results, the cron purge's result and
// every AppError, for every route. The status a receipt records comes from here too, so what we
// answered and what we wrote down cannot drift apart. Status codes: README "The webhook endpoint".
import { AppError, type AppErrorCode } from "../errors";
import type { IngestResult, RejectionReason } from "../ingest/ingest-result";
import { describeError, log } from "../log";
import type { CronPurgeResult } from "../retention/cron-purge";

export type HttpResult = IngestResult | CronPurgeResult;

/** A delivery we could not commit: the sender retries after this many seconds. */
export const INGEST_RETRY_AFTER_SECONDS = 5;

const statusByCode: Record<AppErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  invalid_setting: 500,
  internal: 500,
};

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

export function statusOf(value: HttpResult | AppError): number {
  if (value instanceof AppError) return statusByCode[value.code];
  switch (value.outcome) {
    case "rejected":
      return statusByRejection[value.reason];
    case "unavailable":
      return 503;
    case "purge_run":
      return value.run.status === "failed" ? 503 : 200;
    default:
      return 200;
  }
}

export function toResponse(value: HttpResult | AppError): Response {
  const headers: Record<string, string> = { "cache-control": "no-store" };
  let body: Record<string, unknown>;
  if (value instanceof AppError) {
    body = { error: value.publicMessage };
    if (value.challenge) headers["www-authenticate"] = value.challenge;
    if (value.retryAfterSeconds !== undefined) headers["retry-after"] = String(value.retryAfterSeconds);
  } else {
    switch (value.outcome) {
      case "rejected":
        body = { error: value.error };
        if (value.reason === "method_not_allowed") headers.allow = "POST";
        break;
      case "unavailable":
        body = { error: value.error };
        headers["retry-after"] = String(INGEST_RETRY_AFTER_SECONDS);
        break;
      case "purge_run":
        body = { run: value.run };
        break;
      case "duplicate":
        body = value.firstOutcome
          ? { outcome: "duplicate", first_outcome: value.firstOutcome }
          : { outcome: "duplicate" };
        break;
      default:
        body = value.reason ? { outcome: value.outcome, reason: value.reason } : { outcome: value.outcome };
    }
  }
  headers["content-type"] = "application/json";
  return new Response(JSON.stringify(body), { status: statusOf(value), headers });
}

/**
 * Runs a route's domain call and answers with its result; an AppError becomes its documented
 * status, anything else a bare 500 (logged, never shown).
 */
export async function respond(route: string, run: () => Promise<HttpResult>): Promise<Response> {
  try {
    return toResponse(await run());
  } catch (error) {
    if (error instanceof AppError) return toResponse(error);
    log.error("route failed", { route, error: describeError(error) });
    return toResponse(new AppError("internal", "internal error; try again later"));
  }
}
