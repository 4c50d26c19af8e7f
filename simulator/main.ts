// `npm run provider`: the provider simulator, its own process (docs/design.md, "The provider side").
// It speaks the provider's REST API (lib/operations/provider/api-schema.ts), delivers signed webhooks at least
// once on a retry schedule, injects faults on demand, and keeps its state in an ndjson journal
// (simulator/store.ts) so keys, sequences and delivery history survive its restart.
// Settings: simulator/config.ts. Control endpoints: simulator/http-api.ts.
// With PROVIDER_SIM_PORT=0 (tests) it prints one line {"port":N} on stdout once listening.
import { createServer } from "node:http";
import { readSimConfig } from "./config";
import { demoDistrictIds, importDemoDistricts } from "./demo-districts";
import { Dispatcher } from "./dispatcher";
import { seededRandom, type Faults } from "./faults";
import { createRequestHandler } from "./http-api";
import { SimProvider } from "./provider";
import { SimStore } from "./store";
import { CustomerActivity, startStream } from "./stream";

function fail(message: string): never {
  process.stderr.write(`provider-sim: ${message}\n`);
  process.exit(1);
}

let config: ReturnType<typeof readSimConfig>;
try {
  config = readSimConfig(process.env);
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}

const random = seededRandom(config.seed);
let faults: Faults = config.faults;
const store = SimStore.open(config.dataDir);
const dispatcher = new Dispatcher(store, {
  retryScheduleMs: config.retryScheduleMs,
  deliveryTimeoutMs: config.deliveryTimeoutMs,
  signingKeys: config.signingKey ? [config.signingKey] : [],
  concurrency: config.concurrency,
  faults: () => faults,
  takeBadSignature: () => {
    if (faults.badSignatureNext === 0) return 0;
    faults = { ...faults, badSignatureNext: faults.badSignatureNext - 1 };
    return faults.badSignatureAttempts;
  },
  random,
});
const provider = new SimProvider(store, config.secret, (message) => dispatcher.schedule(message));
if (config.demo) importDemoDistricts(store, provider);
dispatcher.resume();
const activity = CustomerActivity.fromStore(store);
const streamTenants = config.streamTenants ?? (config.demo ? demoDistrictIds() : []);

const handler = createRequestHandler({
  apiKey: config.apiKey,
  store,
  provider,
  dispatcher,
  faults: { get: () => faults, set: (next) => (faults = next) },
  random,
  streamIntervalMs: config.streamIntervalMs,
  quietMs: config.quietMs,
  activity,
});
const server = createServer((req, res) => void handler(req, res));
server.keepAliveTimeout = 30_000;

// The demo has something to practise on at once: every district changes in its first minute, and
// the changes after the first are refused on their first attempts (a signature made with a secret
// the app does not hold), so Deliveries shows failed deliveries to redeliver (docs/daily-use.md).
const DEMO_FIRST_ROUND_MS = 60_000;
const DEMO_REFUSED_CHANGES = 2;
let emitted = 0;
const stream =
  streamTenants.length > 0
    ? startStream({
        provider,
        tenants: streamTenants,
        intervalMs: config.streamIntervalMs,
        quietMs: config.quietMs,
        activity,
        hasHook: () => store.hooks.size > 0,
        random,
        firstRoundMs: config.demo ? DEMO_FIRST_ROUND_MS : undefined,
        onEvent: (event) => {
          if (config.demo && ++emitted === 1)
            faults = { ...faults, badSignatureNext: faults.badSignatureNext + DEMO_REFUSED_CHANGES };
          process.stdout.write(
            `provider-sim: emitted ${event.type} ${event.id} for ${event.tenantId} (sequence ${event.sequence})\n`,
          );
        },
      })
    : null;

server.on("error", (error: NodeJS.ErrnoException) => {
  fail(error.code === "EADDRINUSE" ? `port ${config.port} is in use (set PROVIDER_SIM_PORT)` : error.message);
});
server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  // The machine-readable line only when the system chose the port: a caller reads it (tests).
  if (config.port === 0) process.stdout.write(JSON.stringify({ port }) + "\n");
  process.stderr.write(
    `provider-sim: listening on http://${config.host}:${port} (data ${config.dataDir ?? "in memory"}, ${store.events.size} events, ${store.hooks.size} hooks, seed ${config.seed})\n`,
  );
  if (stream)
    process.stderr.write(
      `provider-sim: background key changes for ${streamTenants.join(", ")}: about every ${Math.round(config.streamIntervalMs / 60_000)} min per district (PROVIDER_SIM_STREAM_INTERVAL_MS), none within ${Math.round(config.quietMs / 60_000)} min of a change made through the API (PROVIDER_SIM_QUIET_MS)\n`,
    );
});

// With a pipe from the launcher on stdin: the kernel closes it when the launcher dies, however
// it dies, and we stop instead of living on as an orphan holding the port.
if (process.env.PROVIDER_SIM_EXIT_WITH_PARENT === "1") {
  process.stdin.on("close", () => shutdown());
  process.stdin.resume();
}

function shutdown(): void {
  stream?.stop();
  dispatcher.stop();
  server.close();
  server.closeAllConnections();
  store.close();
  process.exit(0);
}
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
