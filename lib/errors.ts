// One error type for the whole domain. lib/http/to-response.ts maps it (and the domain results)
// to HTTP in one place, and server actions to a form message; anything that is not an AppError
// is a bug or an outage and is never shown to a user as-is.

export type AppErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "payload_too_large"
  | "rate_limited"
  | "unavailable"
  | "invalid_setting"
  | "internal";

export type AppErrorOptions = {
  cause?: unknown;
  /** For "unauthorized": the scheme the caller should use (an HTTP WWW-Authenticate challenge). */
  challenge?: string;
  /** For "unavailable" and "rate_limited": when trying again makes sense. */
  retryAfterSeconds?: number;
  /** For "bad_request" from a form: the field at fault (its form shows the message next to it). */
  field?: string;
};

export class AppError extends Error {
  readonly code: AppErrorCode;
  /** Safe to show to the caller: never contains internals. */
  readonly publicMessage: string;
  readonly challenge: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly field: string | undefined;

  constructor(code: AppErrorCode, publicMessage: string, options?: AppErrorOptions) {
    super(publicMessage, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.publicMessage = publicMessage;
    this.challenge = options?.challenge;
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.field = options?.field;
  }
}

export function isAppError(error: unknown, code?: AppErrorCode): error is AppError {
  return error instanceof AppError && (code === undefined || error.code === code);
}
