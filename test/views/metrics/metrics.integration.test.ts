import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET } from "@/app/api/metrics/route";
import { resetEnvForTests } from "@/lib/core/config/env";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";

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

  it("exposes exactly the metrics docs/metrics.md lists, each once, prefixed keyhook_ once", async () => {
    // A delivery and a purge, so every metric has a sample (the last purge's time has none before one).
    await deliver(keyEvent({ type: "key.created", tenantId: "district-n", keyId: "key_n", sequence: 1 }));
    await runPurge({ trigger: "manual", pauseMs: 0 });
    const page = readFileSync(path.resolve(import.meta.dirname, "../../../docs/metrics.md"), "utf8");
    // The first cell of each table row: `keyhook_…`.
    const documented = [...page.matchAll(/^\| `(keyhook_[a-z0-9_]+)`/gm)].map((match) => match[1]!);

    const text = await (await scrape(`Bearer ${TOKEN}`)).text();
    const exposed = [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!);

    expect(new Set(documented).size).toBe(documented.length);
    expect(new Set(exposed).size).toBe(exposed.length);
    expect([...exposed].sort()).toEqual([...documented].sort());
    for (const name of exposed) expect(name).toMatch(/^keyhook_(?!.*keyhook_)(?!process_process_)(?!process_nodejs_)/);
    expect(exposed).toContain("keyhook_process_cpu_seconds_total");
    expect(exposed).toContain("keyhook_nodejs_eventloop_lag_seconds");
  });
});
