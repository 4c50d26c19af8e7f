// Scrapes GET /api/metrics the way Prometheus does (bearer token), with METRICS_TOKEN set for the
// call only, and returns the Prometheus text.
import { expect } from "vitest";
import { GET } from "@/app/api/metrics/route";
import { resetEnvForTests } from "@/lib/core/config/env";

const TOKEN = "metrics-token-for-tests-0123";

export async function scrapeMetrics(): Promise<string> {
  process.env.METRICS_TOKEN = TOKEN;
  resetEnvForTests();
  try {
    const response = await GET(
      new Request("http://keyhook.test/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }),
    );
    expect(response.status).toBe(200);
    return await response.text();
  } finally {
    delete process.env.METRICS_TOKEN;
    resetEnvForTests();
  }
}
