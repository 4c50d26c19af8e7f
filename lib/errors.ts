// One error type for the whole domain. Route handlers and actions map it to an HTTP status or a
// form message with `httpStatusOf`; anything that is not an AppError is a bug or an outage and is
// never shown to a user as-is.

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
  | "invalid_setting";

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
};

export class AppError extends Error {
  readonly code: AppErrorCode;
  /** Safe to show to the caller: never contains internals. */
  readonly publicMessage: string;

  constructor(code: AppErrorCode, publicMessage: string, options?: { cause?: unknown }) {
    super(publicMessage, options);
    this.name = "AppError";
    this.code = code;
    this.publicMessage = publicMessage;
  }

  get status(): number {
    return statusByCode[this.code];
  }
}

export function httpStatusOf(error: unknown): number {
  return error instanceof AppError ? error.status : 500;
}

export function isAppError(error: unknown, code?: AppErrorCode): error is AppError {
  return error instanceof AppError && (code === undefined || error.code === code);
}
