// The one place an AppError becomes HTTP, for every route. A route maps its own domain result
// (the webhook's: http/webhook/ingest-response.ts; the cron purge's: its route) and leaves its
// errors to this module. Status codes: docs/design.md, "Status codes".
import { AppError, type AppErrorCode } from "../lib/core/errors";
import { describeError, log } from "../lib/core/log";
import { jsonResponse } from "./json-response";

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

export function toResponse(error: AppError, extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { ...extraHeaders };
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
  return jsonResponse({ error: error.publicMessage }, { status: statusByCode[error.code], headers });
}

/**
 * Runs a route's work, which answers with its own result; an AppError becomes its documented
 * status, anything else a bare 500 (logged, never shown).
 */
export async function respond(route: string, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) return toResponse(error);
    log.error("route failed", { route, error: describeError(error) });
    return toResponse(new AppError("internal", "internal error; try again later"));
  }
}
