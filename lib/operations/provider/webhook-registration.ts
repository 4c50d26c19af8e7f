import "server-only";
// Our webhook endpoint registered at the provider, remembered in `settings`:
//   "provider.hook_id"  → the provider's hook id (a JSON string)
//   "provider.hook_url" → the URL it was registered for (a JSON string)
// Our stored id is only what we last heard: the provider can lose a hook (its state reset, the
// hook deleted there), so "already registered" is only said after the provider confirms it.
// Registration is idempotent end to end: the Idempotency-Key is derived from the URL (and from
// the hook it replaces, so a provider that replays a key's first answer cannot hand back the
// hook it lost), so a crash between the provider's answer and our settings write, or two
// processes registering at once, still leaves the provider with ONE hook for that URL.
import { createHash } from "node:crypto";
import { prisma, type DbOrTx } from "../../core/db/client";
import { providerClientFromEnv, type ProviderClient } from "./client";

export const HOOK_ID_SETTING = "provider.hook_id";
export const HOOK_URL_SETTING = "provider.hook_url";

export type WebhookRegistrationResult = {
  hookId: string;
  /** False: the provider confirmed it knows this hook for this URL, and nothing was sent. */
  created: boolean;
  /** The hook we had stored that the provider no longer knew (re-registered in its place). */
  replacedHookId: string | null;
};

export async function getRegisteredHookId(db: DbOrTx = prisma): Promise<string | null> {
  const row = await db.setting.findUnique({ where: { key: HOOK_ID_SETTING } });
  return typeof row?.value === "string" ? row.value : null;
}

export function registrationIdempotencyKey(url: string, replacing: string | null = null): string {
  const seed = replacing ? `${url}\nreplacing ${replacing}` : url;
  return `keyhook-register-${createHash("sha256").update(seed).digest("hex").slice(0, 32)}`;
}

export async function ensureWebhookRegistered(
  options: { url: string; client?: ProviderClient; actor?: string },
  db: DbOrTx = prisma,
): Promise<WebhookRegistrationResult> {
  const client = options.client ?? providerClientFromEnv();
  const [hookId, hookUrl] = await Promise.all([
    getRegisteredHookId(db),
    db.setting.findUnique({ where: { key: HOOK_URL_SETTING } }),
  ]);
  let replacedHookId: string | null = null;
  if (hookId) {
    const known = await client.getWebhook({ hookId });
    if (known && known.url === options.url && hookUrl?.value === options.url)
      return { hookId, created: false, replacedHookId: null };
    if (!known) replacedHookId = hookId;
  }

  const hook = await client.registerWebhook({
    url: options.url,
    idempotencyKey: registrationIdempotencyKey(options.url, replacedHookId),
  });
  const updatedBy = options.actor ?? "system";
  for (const [key, value] of [
    [HOOK_ID_SETTING, hook.hookId],
    [HOOK_URL_SETTING, options.url],
  ] as const) {
    await db.setting.upsert({
      where: { key },
      create: { key, value, updatedBy },
      update: { value, updatedBy, updatedAt: new Date() },
    });
  }
  return { hookId: hook.hookId, created: true, replacedHookId };
}
