import { env } from "@/lib/core/config/env";
import { AppError } from "@/lib/core/errors";
import { metrics } from "@/lib/core/telemetry/ingest-metrics";
import { databaseGaugesText } from "@/lib/views/metrics/database-gauges";
import { machineRoute } from "../../_lib/machine-route";

export const dynamic = "force-dynamic";

export const GET = machineRoute(
  "metrics",
  {
    bearer: {
      token: () => env().METRICS_TOKEN,
      realm: "metrics",
      unset: new AppError("not_found", "metrics are disabled: set METRICS_TOKEN"),
    },
  },
  async () => {
    const { registry } = metrics();
    let databaseText = "";
    try {
      databaseText = await databaseGaugesText(registry);
    } catch {
      // The process metrics are still worth scraping while the database is down.
      databaseText = "# keyhook database gauges unavailable: database unreachable\n";
    }
    return new Response((await registry.metrics()) + databaseText, {
      headers: { "content-type": registry.contentType, "cache-control": "no-store" },
    });
  },
);
