import { handlePurgeCron } from "@/lib/retention/cron-purge";

// Authenticated by the CRON_SECRET bearer token (checked in the handler), not a session.
export const dynamic = "force-dynamic";
// Vercel-style platforms cut a function off at its max duration; the purge stops itself earlier.
export const maxDuration = 60;

// Vercel cron calls GET; other schedulers may POST.
export const GET = handlePurgeCron;
export const POST = handlePurgeCron;
