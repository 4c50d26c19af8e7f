import { respond } from "@/lib/http/to-response";
import { runCronPurge } from "@/lib/retention/cron-purge";

// Authenticated by the CRON_SECRET bearer token (checked in runCronPurge), not a session.
export const dynamic = "force-dynamic";
// Vercel-style platforms cut a function off at its max duration; the purge stops itself earlier.
export const maxDuration = 60;

const handle = (request: Request) =>
  respond("cron.purge", () => runCronPurge({ authorization: request.headers.get("authorization") }));

// Vercel cron calls GET; other schedulers may POST.
export const GET = handle;
export const POST = handle;
