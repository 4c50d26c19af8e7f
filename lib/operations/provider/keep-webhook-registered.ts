import "server-only";
// The worker's webhook registration (job provider.register_webhook): at the worker's start, every
// hour, and again after each failure with a capped backoff, it asks the provider whether it knows
// our hook for PROVIDER_WEBHOOK_URL and registers it when it does not. One job among the others:
// a provider that is down never holds the rest of the worker back. Every call's outcome goes to
// the provider link, from which the alert sweep raises "provider unreachable".
import { prisma, type DbOrTx } from "../../core/db/client";
import { describeError, log } from "../../core/log";
import type { ProviderClient } from "./client";
import { isProviderError } from "./errors";
import { isUnreachable, recordProviderCall } from "./provider-link";
import { ensureWebhookRegistered } from "./webhook-registration";

type KeepRegisteredResult =
  | { outcome: "registered" | "confirmed"; hookId: string }
  /** Try again after `retryInMs` (the job re-queues itself). */
  | { outcome: "failed"; error: string; retryInMs: number };

/** Backoff before attempt n+1: 1 s doubling, at most a minute (the provider may be starting). */
function registrationRetryMs(attempt: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.min(Math.max(attempt - 1, 0), 6));
}

export async function keepWebhookRegistered(
  options: { url: string; client: ProviderClient; attempt: number; now?: () => Date },
  db: DbOrTx = prisma,
): Promise<KeepRegisteredResult> {
  const now = options.now ?? (() => new Date());
  try {
    const result = await ensureWebhookRegistered({ url: options.url, client: options.client }, db);
    await recordProviderCall({ at: now(), error: null }, db);
    if (result.replacedHookId)
      log.warn("the provider no longer knew our webhook; registered it again", {
        lost_hook_id: result.replacedHookId,
        hook_id: result.hookId,
        url: options.url,
      });
    else if (result.created)
      log.info("webhook registered at the provider", { hook_id: result.hookId, url: options.url });
    return { outcome: result.created ? "registered" : "confirmed", hookId: result.hookId };
  } catch (error) {
    if (!isProviderError(error)) throw error; // the database: the queue's own retry handles it
    const described = describeError(error);
    await recordProviderCall({ at: now(), error: isUnreachable(error) ? described : null }, db);
    const retryInMs = Math.max(registrationRetryMs(options.attempt), error.retryAfterMs ?? 0);
    log.warn("webhook registration failed; retrying", {
      attempt: options.attempt,
      url: options.url,
      retry_in_ms: retryInMs,
      error: described,
    });
    return { outcome: "failed", error: described, retryInMs };
  }
}
