import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET } from "@/app/api/metrics/route";
import { resetEnvForTests } from "@/lib/env";
import { resetDatabase } from "../support/state";
import { deliver, keyEvent } from "../support/webhooks";

const TOKEN = "metrics-token-for-tests-0123";
const scrape = (authorization?: string) =>
  GET(new Request("http://keyhook.test/api/metrics", { headers: authorization ? { authorization } : {} }));

beforeEach(async () => {
  await resetDatabase();
  process.env.METRICS_TOKEN = TOKEN;
  resetEnvForTests();
});
afterEach(() => {
  delete process.env.METRICS_TOKEN;
  resetEnvForTests();
});

describe("GET /api/metrics", () => {
  it("exposes deliveries by outcome and status, latency, and database gauges in Prometheus text", async () => {
    const created = keyEvent({ type: "key.created", tenantId: "district-m", keyId: "key_m", sequence: 1 });
    await deliver(created);
    await deliver(created);
    await deliver(keyEvent({ type: "key.revoked", tenantId: "district-x", keyId: "key_m", sequence: 1 }));

    const response = await scrape(`Bearer ${TOKEN}`);
    const text = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(text).toMatch(/keyhook_webhook_deliveries_total\{status="200",outcome="applied"\} 1/);
    expect(text).toMatch(/keyhook_webhook_deliveries_total\{status="200",outcome="duplicate"\} 1/);
    expect(text).toMatch(/keyhook_webhook_deliveries_total\{status="200",outcome="quarantined"\} 1/);
    expect(text).toMatch(/keyhook_ingest_duration_seconds_count\{outcome="applied"\} 1/);
    expect(text).toMatch(/keyhook_quarantine_open 1/);
    expect(text).toMatch(/keyhook_outbox_backlog 0/);
    expect(text).toMatch(/keyhook_ledger_rows /);
  });

  it("refuses a missing or wrong token, and is off when no token is configured", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape("Bearer wrong-token-of-same-size!")).status).toBe(401);
    delete process.env.METRICS_TOKEN;
    resetEnvForTests();
    expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(404);
  });
});
