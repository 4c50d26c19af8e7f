import "server-only";
// Our webhook endpoint registered at the provider, remembered in `settings`:
//   "provider.hook_id"  → the provider's hook id (a JSON string)
//   "provider.hook_url" → the URL it was registered for (a JSON string)
// Registration is idempotent end to end: the Idempotency-Key is derived from the URL, so a crash
// between the provider's answer and our settings write, or two processes registering at once,
// still leaves the provider with ONE hook for that URL.
import { createHash } from "node:crypto";
import { prisma, type DbOrTx } from "../db";
import { providerClientFromEnv, type ProviderClient } from "./client";

export const HOOK_ID_SETTING = "provider.hook_id";
export const HOOK_URL_SETTING = "provider.hook_url";

export async function getRegisteredHookId(db: DbOrTx = prisma): Promise<string | null> {
  const row = await db.setting.findUnique({ where: { key: HOOK_ID_SETTING } });
  return typeof row?.value === "string" ? row.value : null;
}

export function registrationIdempotencyKey(url: string): string {
  return `keyhook-register-${createHash("sha256").update(url).digest("hex").slice(0, 32)}`;
}

export async function ensureWebhookRegistered(
  options: { url: string; client?: ProviderClient; actor?: string },
  db: DbOrTx = prisma,
): Promise<{ hookId: string; created: boolean }> {
  const [hookId, hookUrl] = await Promise.all([
    getRegisteredHookId(db),
    db.setting.findUnique({ where: { key: HOOK_URL_SETTING } }),
  ]);
  if (hookId && hookUrl?.value === options.url) return { hookId, created: false };

  const client = options.client ?? providerClientFromEnv();
  const hook = await client.registerWebhook({
    url: options.url,
    idempotencyKey: registrationIdempotencyKey(options.url),
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
  return { hookId: hook.hookId, created: true };
}
