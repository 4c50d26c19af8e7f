import "server-only";
// The Settings page: where our webhook is registered at the provider, whether the provider answers,
// and which signing secrets this process accepts. Secrets appear only as fingerprints (the first
// 8 hex characters of their SHA-256): enough to tell two deployments' secrets apart, useless for
// signing, and no prefix of the secret itself ever leaves this file.
import { prisma, type DbOrTx } from "../../core/db/client";
import { secretFingerprint } from "../../core/ingest/secret-fingerprint";
import { DEV_WEBHOOK_SECRET, env, type Env } from "../../core/config/env";
import { describeError, log } from "../../core/log";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { providerClientFromEnv, type ProviderClient } from "../../operations/provider/client";
import { isProviderError, toAppError } from "../../operations/provider/errors";
import { getRegisteredHookId, HOOK_URL_SETTING } from "../../operations/provider/webhook-registration";
import { expectedWebhookUrl, type WebhookUrl } from "../../core/config/webhook-url";

export type ReachabilityProbe = Pick<ProviderClient, "getWebhook">;

type ProviderReachability =
  | { kind: "reachable" }
  /** It answered, and does not know the hook we have stored: nothing is delivered to us. */
  | { kind: "hook_missing"; hookId: string }
  /** It answered, but refused our API key: registration would fail the same way. */
  | { kind: "key_refused"; message: string }
  | { kind: "unreachable"; message: string };

type SecretFingerprint = { fingerprint: string; isDevelopmentSecret: boolean };

export type PlatformSettings = {
  registration: { hookId: string | null; hookUrl: string | null; updatedAt: Date | null; updatedBy: string | null };
  /** The URL the provider should call; registering makes the stored URL equal to it. */
  expectedUrl: WebhookUrl;
  providerUrl: string;
  provider: ProviderReachability;
  secrets: SecretFingerprint[];
  /** WEBHOOK_PUBLIC_KEYS (v1a), each with its fingerprint as receipts record it. */
  publicKeys: { fingerprint: string; key: string }[];
  metricsTokenSet: boolean;
  cronSecretSet: boolean;
};

export { secretFingerprint };

/** One GET with a short timeout and no retries: a page must not hang on a provider outage. */
function probeFromEnv(): ReachabilityProbe {
  return providerClientFromEnv({ maxRetries: 0, timeoutMs: 2_000 });
}

async function checkProvider(probe: ReachabilityProbe, hookId: string | null): Promise<ProviderReachability> {
  try {
    // With no hook yet the provider answers 404 (null), which still proves it is up and accepts our key.
    const hook = await probe.getWebhook({ hookId: hookId ?? "hook_none" });
    return hookId && !hook ? { kind: "hook_missing", hookId } : { kind: "reachable" };
  } catch (error) {
    log.warn("provider reachability check failed", { error: describeError(error) });
    const message = toAppError(error).publicMessage;
    return isProviderError(error, "unauthorized") ? { kind: "key_refused", message } : { kind: "unreachable", message };
  }
}

export async function getPlatformSettings(
  options: { actor: Actor; config?: Env; probe?: ReachabilityProbe },
  db: DbOrTx = prisma,
): Promise<PlatformSettings> {
  authorize(options.actor, "settings.view");
  const config = options.config ?? env();
  const [hookId, hookUrlRow] = await Promise.all([
    getRegisteredHookId(db),
    db.setting.findUnique({ where: { key: HOOK_URL_SETTING } }),
  ]);
  const provider = await checkProvider(options.probe ?? probeFromEnv(), hookId);
  return {
    registration: {
      hookId,
      hookUrl: typeof hookUrlRow?.value === "string" ? hookUrlRow.value : null,
      updatedAt: hookUrlRow?.updatedAt ?? null,
      updatedBy: hookUrlRow?.updatedBy ?? null,
    },
    expectedUrl: expectedWebhookUrl(config),
    providerUrl: config.PROVIDER_URL,
    provider,
    secrets: config.WEBHOOK_SECRETS.map((secret) => ({
      fingerprint: secretFingerprint(secret),
      isDevelopmentSecret: secret === DEV_WEBHOOK_SECRET,
    })),
    // Public keys are not secret: shown whole, so they can be compared with the provider's.
    publicKeys: config.WEBHOOK_PUBLIC_KEYS.map((key) => ({ fingerprint: secretFingerprint(key), key })),
    metricsTokenSet: Boolean(config.METRICS_TOKEN),
    cronSecretSet: Boolean(config.CRON_SECRET),
  };
}
