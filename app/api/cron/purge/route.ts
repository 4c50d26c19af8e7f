import { jsonResponse } from "@/lib/http/json-response";
import { respond } from "@/lib/http/to-response";
import { runCronPurge } from "@/lib/retention/cron-purge";

// Authenticated by the CRON_SECRET bearer token (checked in runCronPurge), not a session.
export const dynamic = "force-dynamic";
// Vercel-style platforms cut a function off at its max duration; the purge stops itself earlier.
export const maxDuration = 60;

const handle = (request: Request) =>
  respond("cron.purge", async () => {
    const run = await runCronPurge({ authorization: request.headers.get("authorization") });
    // A run that recorded `failed` is answered 503, so the platform shows the cron as failing.
    return jsonResponse({ run }, { status: run.status === "failed" ? 503 : 200 });
  });

// Vercel cron calls GET; other schedulers may POST.
export const GET = handle;
export const POST = handle;
