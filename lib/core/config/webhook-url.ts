// Where the provider delivers: the webhook route's path (app/api/webhooks/keys/route.ts; a test
// checks the route is there) and the public URL we register at the provider.
import { env, type Env } from "./env";

export const WEBHOOK_PATH = "/api/webhooks/keys";

export type WebhookUrl = { url: string; source: "PROVIDER_WEBHOOK_URL" | "NEXTAUTH_URL" | "PORT" };

/**
 * PROVIDER_WEBHOOK_URL when set (the worker registers that one at start); otherwise the dashboard's
 * public URL, and as a last resort this process on loopback (right for dev and the simulator only).
 */
export function expectedWebhookUrl(config: Env = env()): WebhookUrl {
  if (config.PROVIDER_WEBHOOK_URL) return { url: config.PROVIDER_WEBHOOK_URL, source: "PROVIDER_WEBHOOK_URL" };
  if (config.NEXTAUTH_URL)
    return { url: new URL(WEBHOOK_PATH, config.NEXTAUTH_URL).toString(), source: "NEXTAUTH_URL" };
  return { url: `http://127.0.0.1:${config.PORT}${WEBHOOK_PATH}`, source: "PORT" };
}
