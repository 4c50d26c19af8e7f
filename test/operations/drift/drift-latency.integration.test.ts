// "Run drift check" starts within seconds: the request queues the worker's drift.check job in its
// own transaction, and the queue's NOTIFY at commit wakes the worker — it does not wait for the
// minute's cron. Measured from the request to the run's start, with a real worker process.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { requestDriftCheck } from "@/lib/operations/drift/request-drift-check";
import { waitUntil } from "../../support/child-process";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";
import { startWorker, type WorkerProcess } from "../../support/worker";

const platformAdmin: Actor = {
  id: "u-platform",
  email: "platform@keyhook.test",
  name: null,
  role: "platform_admin",
  tenantId: null,
};

let sim: SimulatorProcess;
let worker: WorkerProcess;
beforeAll(async () => {
  sim = await startSimulator();
  // No scheduled runs: only the requested one can start.
  worker = startWorker({
    DATABASE_URL: process.env.DATABASE_URL!,
    PROVIDER_URL: sim.url,
    DRIFT_CHECK_INTERVAL_HOURS: "0",
  });
  // The worker is up once its start jobs have run.
  await waitUntil(async () => (await prisma.purgeRun.count()) > 0, 100);
}, 60_000);
afterAll(async () => {
  await Promise.all([worker?.kill(), sim?.dispose()]);
});

it("starts a requested drift check within a few seconds, not at the next minute", async () => {
  // Well before a minute boundary, where the minute's cron job would start it anyway.
  await waitUntil(() => new Date().getSeconds() < 45, 200);
  const { runId, outcome } = await requestDriftCheck({ actor: platformAdmin });
  expect(outcome).toBe("requested");
  const id = BigInt(runId);
  await waitUntil(async () => (await prisma.driftRun.findUniqueOrThrow({ where: { id } })).startedAt !== null, 50);
  const run = await prisma.driftRun.findUniqueOrThrow({ where: { id } });
  const latencyMs = run.startedAt!.getTime() - run.requestedAt.getTime();
  expect(latencyMs).toBeLessThan(5_000);
}, 90_000);
