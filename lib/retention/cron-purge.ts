import "server-only";
// The purge as a platform cron runs it (Vercel sends `Authorization: Bearer $CRON_SECRET`),
// returning a domain result; app/api/cron/purge maps it to HTTP.
import { createHash, timingSafeEqual } from "node:crypto";
import { env } from "../env";
import { AppError } from "../errors";
import { describeError, log } from "../log";
import type { PurgeRunSummary } from "./purge-runs";
import { runPurge } from "./run-purge";

/** Below a serverless function's usual 60 s limit; an unfinished purge is continued next time. */
export const CRON_PURGE_TIME_BUDGET_MS = 45_000;

/** Constant-time whatever the lengths: both sides are hashed to 32 bytes first. */
function bearerMatches(header: string | null, secret: string): boolean {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1] ?? "";
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(token), digest(secret)) && token.length > 0;
}

/** The recorded run (its route answers a `failed` one with 503). */
export async function runCronPurge(options: { authorization: string | null }): Promise<PurgeRunSummary> {
  const secret = env().CRON_SECRET;
  if (!secret) throw new AppError("unavailable", "the purge cron is not configured: set CRON_SECRET");
  if (!bearerMatches(options.authorization, secret)) {
    throw new AppError("unauthorized", "missing or wrong bearer token", { challenge: 'Bearer realm="cron"' });
  }
  try {
    return await runPurge({ trigger: "cron", timeBudgetMs: CRON_PURGE_TIME_BUDGET_MS });
  } catch (error) {
    log.error("cron purge could not run", { error: describeError(error) });
    throw new AppError("unavailable", "the purge could not run; retry later", { cause: error });
  }
}
