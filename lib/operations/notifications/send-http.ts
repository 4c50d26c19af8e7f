import "server-only";
// The two HTTP channels. Slack-compatible incoming webhooks take {"text": …}; the generic JSON
// webhook is signed per Standard Webhooks (webhook-id / webhook-timestamp / webhook-signature,
// HMAC-SHA256 with the channel's whsec_ secret) by the same library our own ingest verifies with.
import { Webhook } from "standardwebhooks";
import { httpStatusRetryable, NotificationError } from "./notification-error";

export async function postSlack(input: { url: string; text: string; timeoutMs: number }): Promise<{ status: number }> {
  return post(input.url, { "content-type": "application/json" }, JSON.stringify({ text: input.text }), input.timeoutMs);
}

export async function postSignedWebhook(input: {
  url: string;
  secret: string;
  messageId: string;
  body: unknown;
  timeoutMs: number;
}): Promise<{ status: number }> {
  const body = JSON.stringify(input.body);
  const sentAt = new Date();
  const signature = new Webhook(input.secret).sign(input.messageId, sentAt, body);
  return post(
    input.url,
    {
      "content-type": "application/json",
      "webhook-id": input.messageId,
      "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
      "webhook-signature": signature,
    },
    body,
    input.timeoutMs,
  );
}

async function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number) {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
  } catch (error) {
    const reason =
      error instanceof Error && error.name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms`
        : describeFetchError(error);
    throw new NotificationError(`could not reach the receiver: ${reason}`, { retryable: true, cause: error });
  }
  // The body is not ours to keep; read it so the connection is reused, cut for the log.
  const answer = (await response.text().catch(() => "")).slice(0, 200);
  if (response.status >= 200 && response.status < 300) return { status: response.status };
  throw new NotificationError(`the receiver answered ${response.status}${answer ? `: ${answer}` : ""}`, {
    status: response.status,
    retryable: httpStatusRetryable(response.status),
  });
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
