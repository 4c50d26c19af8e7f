// The running system for a readiness run: the provider simulator, the ingest served over HTTP
// (the same handler as the Next route) and the worker, which registers our webhook at the provider.
// With `distance`, relays hold every answer between us and the provider (its API's answers, and our
// answers to its deliveries) for the delay a test sets: a provider that far away.
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY, resetEnvForTests } from "@/lib/core/config/env";
import { createProviderClient, type ProviderClient } from "@/lib/operations/provider/client";
import { getRegisteredHookId } from "@/lib/operations/provider/webhook-registration";
import { signDelivery } from "@/lib/operations/provider/signed-delivery";
import { keyEvent, TEST_SECRET } from "./webhooks";
import { startIngestServer, waitUntil, type RunningServer } from "./child-process";
import { startDelayRelay, type DelayRelay } from "./delay-relay";
import { startSimulator, type SimulatorProcess } from "./simulator";
import { startWorker, type WorkerProcess } from "./worker";

/** Short, so the forced failure takes a fraction of a second; the app and the check agree on it. */
export const INGEST_TX_TIMEOUT_MS = "1000";

export type RunningSystem = {
  sim: SimulatorProcess;
  ingest: RunningServer;
  worker: WorkerProcess;
  client: ProviderClient;
  /** Our endpoint, as the check posts to it. */
  webhookUrl: string;
  hookId: string;
  /** With `distance`: how long each answer between us and the provider is held. */
  setProviderDistance: (ms: number) => void;
  stop: () => Promise<void>;
};

export async function startRunningSystem(options: { distance?: boolean } = {}): Promise<RunningSystem> {
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
  const relays: DelayRelay[] = options.distance
    ? await Promise.all([startDelayRelay(sim.url), startDelayRelay(webhookUrl)])
    : [];
  const providerUrl = relays[0]?.url ?? sim.url;
  const worker = startWorker({
    DATABASE_URL: process.env.DATABASE_URL!,
    PROVIDER_URL: providerUrl,
    PROVIDER_WEBHOOK_URL: relays[1] ? `${relays[1].url}/api/webhooks/keys` : webhookUrl,
    LOG_LEVEL: "warn",
  });
  let hookId: string | null = null;
  await waitUntil(async () => (hookId = await getRegisteredHookId(prisma)) !== null, 50);
  const client = createProviderClient({ baseUrl: providerUrl, apiKey: DEV_PROVIDER_API_KEY });
  return {
    sim,
    ingest,
    worker,
    client,
    webhookUrl,
    hookId: hookId!,
    setProviderDistance: (ms) => relays.forEach((relay) => relay.setDelay(ms)),
    stop: async () => {
      await Promise.all([sim.dispose(), ingest.kill(), worker.kill(), ...relays.map((relay) => relay.close())]);
      delete process.env.INGEST_TX_TIMEOUT_MS;
      resetEnvForTests();
    },
  };
}
