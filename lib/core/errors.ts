// One error type for the whole domain. http/to-response.ts maps it to HTTP in one place (each
// route maps its own domain result), and server actions to a form message; anything that is not an AppError
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

type AppErrorOptions = {
  cause?: unknown;
  /** For "unavailable" and "rate_limited": when trying again makes sense. */
  retryAfterSeconds?: number;
  /** For "bad_request" from a form: the field the message is about (shown next to it). */
  field?: string;
};

export class AppError extends Error {
  readonly code: AppErrorCode;
  /** Safe to show to the caller: never contains internals. */
  readonly publicMessage: string;
  readonly retryAfterSeconds: number | undefined;
  readonly field: string | undefined;

  constructor(code: AppErrorCode, publicMessage: string, options?: AppErrorOptions) {
    super(publicMessage, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.publicMessage = publicMessage;
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.field = options?.field;
  }
}

export function isAppError(error: unknown, code?: AppErrorCode): error is AppError {
  return error instanceof AppError && (code === undefined || error.code === code);
}

/** The one wording of an over-long field: refused and shown next to it, never cut and used. */
export function tooLongMessage(max: number, length: number): string {
  return `too long: at most ${max.toLocaleString("en-US")} characters (this has ${length.toLocaleString("en-US")}). Shorten it and try again.`;
}

/** A free-text field a person typed, refused when longer than `max` (trimmed; null when empty). */
export function limitedText(value: string | null | undefined, max: number, field: string): string | null {
  const trimmed = value?.trim() ?? "";
  if (trimmed.length > max) throw new AppError("bad_request", tooLongMessage(max, trimmed.length), { field });
  return trimmed || null;
}
