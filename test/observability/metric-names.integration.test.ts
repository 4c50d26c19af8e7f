// docs/metrics.md is the list of every metric GET /api/metrics exposes: a name the endpoint
// exposes that the page does not list, or a listed name it does not expose, fails here.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET } from "@/app/api/metrics/route";
import { resetEnvForTests } from "@/lib/env";
import { runPurge } from "@/lib/retention/run-purge";
import { resetDatabase } from "../support/state";
import { deliver, keyEvent } from "../support/webhooks";

const TOKEN = "metrics-token-for-tests-0123";
const page = readFileSync(path.resolve(import.meta.dirname, "../../docs/metrics.md"), "utf8");
/** The first cell of each table row: `keyhook_…`. */
const documented = [...page.matchAll(/^\| `(keyhook_[a-z0-9_]+)`/gm)].map((match) => match[1]!);

beforeEach(async () => {
  await resetDatabase();
  process.env.METRICS_TOKEN = TOKEN;
  resetEnvForTests();
});
afterEach(() => {
  delete process.env.METRICS_TOKEN;
  resetEnvForTests();
});

async function exposedNames(): Promise<string[]> {
  const response = await GET(
    new Request("http://keyhook.test/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }),
  );
  expect(response.status).toBe(200);
  const text = await response.text();
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!);
}

describe("metric names", () => {
  it("are exactly the ones docs/metrics.md lists, each once, each prefixed keyhook_ once", async () => {
    // A delivery and a purge, so every metric has a sample (the last purge's time has none before one).
    await deliver(keyEvent({ type: "key.created", tenantId: "district-n", keyId: "key_n", sequence: 1 }));
    await runPurge({ trigger: "manual", pauseMs: 0 });

    const exposed = await exposedNames();

    expect(new Set(documented).size).toBe(documented.length);
    expect(new Set(exposed).size).toBe(exposed.length);
    expect([...exposed].sort()).toEqual([...documented].sort());
    for (const name of exposed) expect(name).toMatch(/^keyhook_(?!.*keyhook_)(?!process_process_)(?!process_nodejs_)/);
    expect(exposed).toContain("keyhook_process_cpu_seconds_total");
    expect(exposed).toContain("keyhook_nodejs_eventloop_lag_seconds");
  });
});
