import { jsonResponse } from "@/http/json-response";
import { env } from "@/lib/core/config/env";
import { AppError } from "@/lib/core/errors";
import { runCronPurge } from "@/lib/operations/retention/cron-purge";
import { machineRoute } from "../../../_lib/machine-route";

export const dynamic = "force-dynamic";
// Vercel-style platforms cut a function off at its max duration; the purge stops itself earlier.
export const maxDuration = 60;

const handle = machineRoute(
  "cron.purge",
  {
    bearer: {
      token: () => env().CRON_SECRET,
      realm: "cron",
      unset: new AppError("unavailable", "the purge cron is not configured: set CRON_SECRET"),
    },
  },
  async () => {
    const run = await runCronPurge();
    // A run that recorded `failed` is answered 503, so the platform shows the cron as failing.
    return jsonResponse({ run }, { status: run.status === "failed" ? 503 : 200 });
  },
);

// Vercel cron calls GET; other schedulers may POST.
export const GET = handle;
export const POST = handle;
