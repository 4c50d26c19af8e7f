// A readiness context for calling one step directly: the database handle is what matters; the
// provider, the webhook and the secrets are the defaults a step that reads only the database
// never uses.
import type { Db } from "@/lib/core/db/client";
import { DEV_WEBHOOK_SECRET } from "@/lib/core/config/env";
import type { ReadinessContext } from "@/lib/operations/readiness/types";

export function readinessContext(db: Db): ReadinessContext {
  return {
    db,
    webhookUrl: "http://127.0.0.1:1/api/webhooks/keys",
    provider: null,
    hookId: null,
    hookMissing: false,
    secrets: [DEV_WEBHOOK_SECRET],
    ingestTimeoutMs: 1_000,
    waitTimeoutMs: 1_000,
    runId: "test",
    now: () => new Date(),
  };
}
