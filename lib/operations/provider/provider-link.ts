import "server-only";
// What the worker last heard from the provider's API on calls the outbox does not make (its
// attempt log records its own): the webhook registration writes here, so a provider that stays
// unreachable raises the provider-unreachable alert (lib/operations/alerts/condition-sweeps.ts) even when no
// key change waits to be sent. One settings row, updated in one statement (several workers).
import { prisma, type DbOrTx } from "../../core/db/client";
import { isProviderError } from "./errors";

export const PROVIDER_LINK_SETTING = "provider.link";

type ProviderLink = {
  lastAnswerAt: Date | null;
  /** The first call without an answer since the last answer; null while the provider answers. */
  failingSince: Date | null;
  lastFailureAt: Date | null;
  failedCalls: number;
  lastError: string | null;
};

/** No answer at all (network, timeout) or a 5xx: what "unreachable" means. Any other answer is one. */
export function isUnreachable(error: unknown): boolean {
  return isProviderError(error) && ["network", "timeout", "server_error"].includes(error.code);
}

/** `error` null: the provider answered (whatever it said). */
export async function recordProviderCall(call: { at: Date; error: string | null }, db: DbOrTx = prisma): Promise<void> {
  const at = call.at.toISOString();
  await db.$executeRaw`
    INSERT INTO settings (key, value, updated_at, updated_by)
    VALUES (${PROVIDER_LINK_SETTING},
      CASE WHEN ${call.error}::text IS NULL THEN jsonb_build_object('lastAnswerAt', ${at}::text)
      ELSE jsonb_build_object('failingSince', ${at}::text, 'lastFailureAt', ${at}::text, 'failedCalls', 1,
        'lastError', ${call.error}::text) END,
      now(), 'worker')
    ON CONFLICT (key) DO UPDATE SET updated_at = now(), value =
      CASE WHEN ${call.error}::text IS NULL THEN jsonb_build_object('lastAnswerAt', ${at}::text)
      ELSE jsonb_build_object(
        'lastAnswerAt', settings.value->'lastAnswerAt',
        'failingSince', COALESCE(settings.value->'failingSince', to_jsonb(${at}::text)),
        'lastFailureAt', ${at}::text,
        'failedCalls', COALESCE((settings.value->>'failedCalls')::int, 0) + 1,
        'lastError', ${call.error}::text) END`;
}

export async function getProviderLink(db: DbOrTx = prisma): Promise<ProviderLink> {
  const row = await db.setting.findUnique({ where: { key: PROVIDER_LINK_SETTING } });
  const value = (row?.value ?? {}) as Record<string, unknown>;
  const date = (v: unknown) => (typeof v === "string" ? new Date(v) : null);
  return {
    lastAnswerAt: date(value.lastAnswerAt),
    failingSince: date(value.failingSince),
    lastFailureAt: date(value.lastFailureAt),
    failedCalls: typeof value.failedCalls === "number" ? value.failedCalls : 0,
    lastError: typeof value.lastError === "string" ? value.lastError : null,
  };
}
