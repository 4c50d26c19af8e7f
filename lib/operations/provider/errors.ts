// Typed failures of a provider call. Callers branch on `code` (or `instanceof`) and on
// `retryable`; `toAppError` turns any of them into the one domain error type for pages and actions.
import { AppError } from "../../core/errors";
import { HOOK_NOT_FOUND } from "./api-schema";

export type ProviderErrorCode =
  | "timeout" // no answer within the client's timeout
  | "network" // connection refused, reset, DNS…
  | "rate_limited" // 429
  | "server_error" // 5xx
  | "unauthorized" // 401/403: our API key is wrong or lacks the right
  | "not_found" // 404
  | "conflict" // 409: the operation contradicts the provider's state (e.g. rotate a revoked key)
  | "bad_request" // other 4xx: our request is wrong; retrying cannot help
  | "bad_response"; // a 2xx whose body is not what the API promises

type ProviderErrorDetails = {
  status?: number | null;
  /** Milliseconds the provider asked us to wait (Retry-After), when it said. */
  retryAfterMs?: number | null;
  /** How many HTTP attempts this call made before giving up. */
  attempts?: number;
  /** The provider's own error code from its body (`hook_not_found` …), when it sent one. */
  providerCode?: string | null;
  /** The provider's own words for its refusal (its body's message), when it sent them. */
  providerMessage?: string | null;
  cause?: unknown;
};

export class ProviderError extends Error {
  readonly code: ProviderErrorCode;
  readonly status: number | null;
  readonly retryAfterMs: number | null;
  readonly attempts: number;
  readonly providerCode: string | null;
  readonly providerMessage: string | null;

  constructor(code: ProviderErrorCode, message: string, details: ProviderErrorDetails = {}) {
    super(message, { cause: details.cause });
    this.name = "ProviderError";
    this.code = code;
    this.status = details.status ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
    this.attempts = details.attempts ?? 1;
    this.providerCode = details.providerCode ?? null;
    this.providerMessage = details.providerMessage ?? null;
  }

  /** True when the same request may succeed later (the outbox reschedules these). */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
}

const RETRYABLE = new Set<ProviderErrorCode>(["timeout", "network", "rate_limited", "server_error"]);

export class ProviderTimeoutError extends ProviderError {
  constructor(message: string, details: ProviderErrorDetails = {}) {
    super("timeout", message, details);
    this.name = "ProviderTimeoutError";
  }
}

export class ProviderNetworkError extends ProviderError {
  constructor(message: string, details: ProviderErrorDetails = {}) {
    super("network", message, details);
    this.name = "ProviderNetworkError";
  }
}

export class ProviderRateLimitedError extends ProviderError {
  constructor(message: string, details: ProviderErrorDetails = {}) {
    super("rate_limited", message, details);
    this.name = "ProviderRateLimitedError";
  }
}

/** Any answer with an HTTP status that is not success: 5xx, 401/403, 404, 409, other 4xx. */
export class ProviderHttpError extends ProviderError {
  constructor(code: ProviderErrorCode, message: string, details: ProviderErrorDetails = {}) {
    super(code, message, details);
    this.name = "ProviderHttpError";
  }
}

export class ProviderResponseError extends ProviderError {
  constructor(message: string, details: ProviderErrorDetails = {}) {
    super("bad_response", message, details);
    this.name = "ProviderResponseError";
  }
}

export function isProviderError(error: unknown, code?: ProviderErrorCode): error is ProviderError {
  return error instanceof ProviderError && (code === undefined || error.code === code);
}

/** The provider answered that it does not know our webhook (it lost it, or it was deleted there). */
export function isHookMissing(error: unknown): boolean {
  return isProviderError(error, "not_found") && error.providerCode === HOOK_NOT_FOUND;
}

/**
 * The caller-facing form: an outage of the provider is `unavailable` (try again later), a request
 * the provider refuses keeps its meaning. The message never carries the provider's raw body.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (!(error instanceof ProviderError))
    return new AppError("unavailable", "the provider could not be reached; try again later", { cause: error });
  switch (error.code) {
    case "not_found":
      return new AppError("not_found", "the provider does not know this key or webhook", { cause: error });
    case "conflict":
      return new AppError("conflict", "the provider refused: the key is not in a state that allows this", {
        cause: error,
      });
    case "bad_request":
      return new AppError("bad_request", "the provider refused the request as invalid", { cause: error });
    case "unauthorized":
      return new AppError("unavailable", "the provider refused our API key (check PROVIDER_API_KEY)", { cause: error });
    case "rate_limited":
      return new AppError("unavailable", "the provider is rate limiting us; try again shortly", { cause: error });
    default:
      return new AppError("unavailable", "the provider is unavailable; try again later", { cause: error });
  }
}
