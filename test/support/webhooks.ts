// Builds signed deliveries exactly as the provider does and posts them to the ingest handler.
import { DEV_WEBHOOK_SECRET } from "@/lib/core/config/env";
import { handleKeyWebhook } from "@/http/webhook/receive-key-webhook";
import { buildKeyEvent, signDelivery, type KeyEventInput } from "@/lib/operations/provider/signed-delivery";

export const TEST_SECRET = DEV_WEBHOOK_SECRET;

export type DeliveryOptions = {
  secrets?: string[];
  /** whsk_ keys: `v1a` signatures beside the secrets' `v1` ones. */
  signingKeys?: string[];
  webhookId?: string;
  timestamp?: Date;
  method?: string;
  headers?: Record<string, string | null>;
};

export function keyEvent(input: KeyEventInput): Record<string, unknown> {
  return buildKeyEvent(input);
}

export function signedRequest(body: Record<string, unknown> | string, options: DeliveryOptions = {}): Request {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const webhookId = options.webhookId ?? (typeof body === "string" ? "evt_raw" : String(body.id));
  const signed = signDelivery({
    body: text,
    webhookId,
    secrets: options.secrets ?? [TEST_SECRET],
    signingKeys: options.signingKeys,
    timestamp: options.timestamp,
  });
  const headers = new Headers(signed.headers);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) headers.delete(name);
    else headers.set(name, value);
  }
  const method = options.method ?? "POST";
  return new Request("http://keyhook.test/api/webhooks/keys", {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : text,
  });
}

export type Answer = { status: number; body: Record<string, unknown> };

export async function deliver(body: Record<string, unknown> | string, options: DeliveryOptions = {}): Promise<Answer> {
  const response = await handleKeyWebhook(signedRequest(body, options));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
