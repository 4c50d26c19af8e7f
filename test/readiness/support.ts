// The running system for a readiness run: the provider simulator, the ingest served over HTTP
// (the same handler as the Next route) and the worker, which registers our webhook at the provider.
import { prisma } from "@/lib/db";
import { DEV_PROVIDER_API_KEY, resetEnvForTests } from "@/lib/env";
import { createProviderClient, type ProviderClient } from "@/lib/provider/client";
import { getRegisteredHookId } from "@/lib/provider/webhook-registration";
import { signDelivery } from "@/lib/provider/signed-delivery";
import { keyEvent, TEST_SECRET } from "../support/webhooks";
import { startIngestServer, waitUntil, type RunningServer } from "../support/child-process";
import { startSimulator, type SimulatorProcess } from "../support/simulator";
import { startWorker, type WorkerProcess } from "../support/worker";

/** Short, so the forced failure takes a fraction of a second; the app and the check agree on it. */
export const INGEST_TX_TIMEOUT_MS = "1000";

export type RunningSystem = {
  sim: SimulatorProcess;
  ingest: RunningServer;
  worker: WorkerProcess;
  client: ProviderClient;
  webhookUrl: string;
  hookId: string;
  stop: () => Promise<void>;
};

export async function startRunningSystem(): Promise<RunningSystem> {
  process.env.INGEST_TX_TIMEOUT_MS = INGEST_TX_TIMEOUT_MS;
  resetEnvForTests();
  const [sim, ingest] = await Promise.all([
    startSimulator({ env: { PROVIDER_SIM_TIME_SCALE: "1000" } }),
    startIngestServer({ DATABASE_URL: process.env.DATABASE_URL!, LOG_LEVEL: "warn", INGEST_TX_TIMEOUT_MS }),
  ]);
  const webhookUrl = `http://127.0.0.1:${ingest.port}/api/webhooks/keys`;
  // Warm the server's pool and prepared statements: a cold first transaction is not what is tested.
  const warmUp = keyEvent({ type: "key.created", tenantId: "district-warm-up", keyId: "key_warm_up", sequence: 1 });
  const signed = signDelivery({ body: JSON.stringify(warmUp), webhookId: String(warmUp.id), secrets: [TEST_SECRET] });
  await fetch(webhookUrl, { method: "POST", headers: signed.headers, body: signed.body });
  const worker = startWorker({
    DATABASE_URL: process.env.DATABASE_URL!,
    PROVIDER_URL: sim.url,
    PROVIDER_WEBHOOK_URL: webhookUrl,
    LOG_LEVEL: "warn",
  });
  let hookId: string | null = null;
  await waitUntil(async () => (hookId = await getRegisteredHookId(prisma)) !== null, 50);
  const client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
  return {
    sim,
    ingest,
    worker,
    client,
    webhookUrl,
    hookId: hookId!,
    stop: async () => {
      await Promise.all([sim.dispose(), ingest.kill(), worker.kill()]);
      delete process.env.INGEST_TX_TIMEOUT_MS;
      resetEnvForTests();
    },
  };
}
