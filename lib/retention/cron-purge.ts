import "server-only";
// GET|POST /api/cron/purge for platforms with a cron (Vercel sends `Authorization: Bearer
// $CRON_SECRET`), as a plain Request → Response function so the route file stays glue.
import { createHash, timingSafeEqual } from "node:crypto";
import { env } from "../env";
import { describeError, log } from "../log";
import { runPurge } from "./run-purge";

/** Below a serverless function's usual 60 s limit; an unfinished purge is continued next time. */
export const CRON_PURGE_TIME_BUDGET_MS = 45_000;

const json = (status: number, body: Record<string, unknown>, headers?: Record<string, string>) =>
  Response.json(body, { status, headers: { "cache-control": "no-store", ...headers } });

/** Constant-time whatever the lengths: both sides are hashed to 32 bytes first. */
function bearerMatches(header: string | null, secret: string): boolean {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1] ?? "";
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(token), digest(secret)) && token.length > 0;
}

export async function handlePurgeCron(request: Request): Promise<Response> {
  const secret = env().CRON_SECRET;
  if (!secret) {
    return json(503, { error: "the purge cron is not configured: set CRON_SECRET" });
  }
  if (!bearerMatches(request.headers.get("authorization"), secret)) {
    return json(401, { error: "missing or wrong bearer token" }, { "www-authenticate": 'Bearer realm="cron"' });
  }
  try {
    const run = await runPurge({ trigger: "cron", timeBudgetMs: CRON_PURGE_TIME_BUDGET_MS });
    return json(run.status === "failed" ? 503 : 200, { run });
  } catch (error) {
    log.error("cron purge could not run", { error: describeError(error) });
    return json(503, { error: "the purge could not run; retry later" });
  }
}
