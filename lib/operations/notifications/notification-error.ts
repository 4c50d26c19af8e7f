// A channel's refusal or failure, as the outbox records it: `status` is the receiver's HTTP status
// (or an SMTP reply code), null when nothing answered. `retryable` decides between another attempt
// after backoff and giving up at once (a 404 webhook stays 404; a 500 or a refused connection may pass).
const NOTIFICATION_KINDS = ["notify.slack", "notify.webhook", "notify.email"] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export function isNotificationKind(kind: string): kind is NotificationKind {
  return (NOTIFICATION_KINDS as readonly string[]).includes(kind);
}

export class NotificationError extends Error {
  readonly status: number | null;
  readonly retryable: boolean;

  constructor(message: string, options: { status?: number | null; retryable: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "NotificationError";
    this.status = options.status ?? null;
    this.retryable = options.retryable;
  }
}

export function isNotificationError(error: unknown): error is NotificationError {
  return error instanceof NotificationError;
}

/** 408, 425, 429 and 5xx may pass on a later attempt; any other refusal will not. */
export function httpStatusRetryable(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}
