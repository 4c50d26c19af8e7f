// 100,000 provider keys in one district, paged through with a 429 (Retry-After) in the middle:
// the check completes, compares every key once, and an interrupted run resumes where it stopped.
// What it costs ingest while it runs is measured by `npm run bench:drift`, not here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { runDriftCheck, type DriftProvider } from "@/lib/operations/drift/run-drift-check";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { createProviderClient, type ProviderAttemptInfo } from "@/lib/operations/provider/client";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";
import { deliver, keyEvent } from "../../support/webhooks";

const KEYS = 100_000;
const TENANT = "district-drift-large";
let sim: SimulatorProcess;
let activeKeyId: string;

beforeAll(async () => {
  sim = await startSimulator({ env: { PROVIDER_SIM_DATA_DIR: "memory" } });
  await sim.control("POST", "/_sim/keys/bulk", { tenant_id: TENANT, count: KEYS - 1, status: "revoked" });
  const client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
  activeKeyId = (await client.issueKey({ tenantId: TENANT, scopes: [], idempotencyKey: "large-1" })).key.id;
  expect(
    (await deliver(keyEvent({ type: "key.created", tenantId: TENANT, keyId: activeKeyId, sequence: 1 }))).status,
  ).toBe(200);
}, 120_000);
afterAll(async () => {
  await sim?.dispose();
});

describe("drift check at scale", () => {
  it(`pages through ${KEYS.toLocaleString("en")} keys with a 429 in the middle, then resumes an interrupted run`, async () => {
    const attempts: ProviderAttemptInfo[] = [];
    const client = createProviderClient({
      baseUrl: sim.url,
      apiKey: DEV_PROVIDER_API_KEY,
      onAttempt: (info) => attempts.push(info),
    });
    let pages = 0;
    const provider: DriftProvider = {
      listKeys: async (input) => {
        // Page 40 of 100: the provider answers the next call 429 with Retry-After: 0.
        if (++pages === 40) await sim.setFaults({ apiRateLimitNext: 1, apiRetryAfterSeconds: 0 });
        return client.listKeys(input);
      },
    };
    const result = await runDriftCheck({ provider, trigger: "test", pageSize: 1000 });
    expect(result).toMatchObject({ status: "done", tenantsDone: 1, pages: 100, keysCompared: KEYS, differences: 0 });
    const limited = attempts.filter((a) => a.status === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({ method: "GET", path: `/v1/tenants/${TENANT}/keys`, retryInMs: 0 });
    expect(await prisma.alert.count()).toBe(0);

    // Interrupted after 30 pages (a worker died, or the provider kept refusing), then resumed.
    const interrupted = await runDriftCheck({ provider: client, trigger: "test", pageSize: 1000, maxPages: 30 });
    expect(interrupted).toMatchObject({ status: "interrupted", pages: 30, keysCompared: 30_000 });
    const resumed = await runDriftCheck({ provider: client, runId: interrupted.id, pageSize: 1000 });
    expect(resumed).toMatchObject({
      id: interrupted.id,
      status: "done",
      pages: 100,
      keysCompared: KEYS,
      differences: 0,
    });

    // A live key only we hold (superseded here, never listed by the provider): found after the last page.
    await prisma.apiKey.create({ data: { id: "key_only_here", tenantId: TENANT, status: "superseded" } });
    const drifted = await runDriftCheck({ provider: client, trigger: "test", pageSize: 1000 });
    expect(drifted).toMatchObject({ status: "done", differences: 1 });
    expect(await prisma.alert.findMany({ select: { kind: true, subject: true } })).toEqual([
      { kind: "drift_local_active", subject: `drift/${TENANT}/key_only_here` },
    ]);
  }, 120_000);
});
