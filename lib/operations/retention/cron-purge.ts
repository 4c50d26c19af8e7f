import "server-only";
// The purge as a platform cron runs it (Vercel sends `Authorization: Bearer $CRON_SECRET`; its
// route, app/api/cron/purge, checks the token), returning the recorded run.
import { AppError } from "../../core/errors";
import { describeError, log } from "../../core/log";
import type { PurgeRunSummary } from "./purge-runs";
import { runPurge } from "./run-purge";

/** Below a serverless function's usual 60 s limit; an unfinished purge is continued next time. */
const CRON_PURGE_TIME_BUDGET_MS = 45_000;

/** The recorded run (its route answers a `failed` one with 503). */
export async function runCronPurge(): Promise<PurgeRunSummary> {
  try {
    return await runPurge({ trigger: "cron", timeBudgetMs: CRON_PURGE_TIME_BUDGET_MS });
  } catch (error) {
    log.error("cron purge could not run", { error: describeError(error) });
    throw new AppError("unavailable", "the purge could not run; retry later", { cause: error });
  }
}
