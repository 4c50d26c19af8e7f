import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { toResponse } from "@/lib/http/to-response";
import { authorizeScrape } from "@/lib/metrics/authorize-scrape";
import { databaseGaugesText } from "@/lib/metrics/database-gauges";
import { metrics } from "@/lib/metrics/ingest-metrics";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  const verdict = authorizeScrape(request.headers.get("authorization"), env().METRICS_TOKEN);
  if (verdict === "not_configured")
    return toResponse(new AppError("not_found", "metrics are disabled: set METRICS_TOKEN"));
  if (verdict === "denied")
    return toResponse(new AppError("unauthorized", "a valid bearer token is required", { challenge: "Bearer" }));

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
}
