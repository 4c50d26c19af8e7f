import "server-only";
// "Register webhook now": makes sure the provider calls the URL this deployment expects. Safe to
// click twice: ensureWebhookRegistered changes nothing when the provider confirms it knows our
// hook for that URL (and registers again when it does not), and its Idempotency-Key makes a
// repeated provider call yield the same hook. Every click is audited, including a refusal, since
// a failed registration explains missing deliveries later.
import { prisma, type DbOrTx } from "../../core/db/client";
import { env, type Env } from "../../core/config/env";
import { recordAudit } from "../../core/audit/record-audit";
import { actorLabel, auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { providerClientFromEnv, type ProviderClient } from "./client";
import { isProviderError, toAppError } from "./errors";
import { ensureWebhookRegistered, type WebhookRegistrationResult } from "./webhook-registration";
import { expectedWebhookUrl } from "../../core/config/webhook-url";

type WebhookRegistration = WebhookRegistrationResult & { url: string };

export async function registerWebhook(
  options: { actor: Actor; config?: Env; client?: ProviderClient },
  db: DbOrTx = prisma,
): Promise<WebhookRegistration> {
  authorize(options.actor, "settings.manage");
  const { url } = expectedWebhookUrl(options.config ?? env());
  const audit = (outcome: string, details: Record<string, unknown>) =>
    recordAudit({ actor: auditActor(options.actor), action: "webhook.register", target: url, outcome, details }, db);
  // Not one transaction: the provider call must not hold a database transaction open, and the
  // settings write is repeatable (a crash in between re-registers the same hook next time).
  let result: WebhookRegistrationResult;
  try {
    // A person is waiting on the button: a short retry loop, not the worker's patient one.
    const client = options.client ?? providerClientFromEnv({ maxRetries: 1, timeoutMs: 5_000, maxDelayMs: 1_000 });
    result = await ensureWebhookRegistered({ url, client, actor: actorLabel(options.actor) }, db);
  } catch (error) {
    if (!isProviderError(error)) throw error; // a database failure is a bug or an outage, not a provider answer
    const appError = toAppError(error);
    await audit("failed", { error: appError.publicMessage });
    throw appError;
  }
  await audit(result.created ? "ok" : "already_registered", {
    hookId: result.hookId,
    ...(result.replacedHookId ? { replacedHookId: result.replacedHookId } : {}),
  });
  return { ...result, url };
}
