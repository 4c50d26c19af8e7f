// The processes `npm run dev` runs next to the app (scripts/boot.ts):
//   - the provider simulator (simulator/main.ts) on PROVIDER_URL's port, starting the demo
//     districts from the demo seed and changing their keys now and then (minutes to hours apart
//     per district, never right after a person did; PROVIDER_SIM_STREAM_INTERVAL_MS for more),
//     with a few duplicates, reorderings and lost responses so the dashboard has something to show;
//   - the worker (server/worker.ts), which registers our webhook at the provider (idempotently)
//     and sends the outbox.
// `npm start` runs neither unless KEYHOOK_WITH_SIMULATOR=1 (both) or KEYHOOK_WITH_WORKER=1 (the
// worker only); KEYHOOK_WITH_SIMULATOR=0 keeps the simulator out of `npm run dev` (a real
// provider in PROVIDER_URL). Each child gets a pipe on stdin and exits when it closes, so a
// SIGKILLed launcher leaves no orphan holding a port. The settings come validated from lib/core/config/env.ts;
// the children's environment is passed through, with defaults for what the caller left unset.
import { spawn, type ChildProcess } from "node:child_process";
import type { Env } from "../../lib/core/config/env";

export type DevCompanions = { stop(): Promise<void> };

const DEMO_FAULTS = JSON.stringify({ duplicateRate: 0.1, reorderRate: 0.05, lostResponseRate: 0.02 });

export function startDevCompanions(options: {
  mode: "dev" | "start";
  appPort: number;
  config: Pick<Env, "KEYHOOK_WITH_SIMULATOR" | "KEYHOOK_WITH_WORKER" | "PROVIDER_URL" | "WEBHOOK_SECRETS">;
  /** The children's environment (the app's, with DATABASE_URL set). */
  env: NodeJS.ProcessEnv;
}): DevCompanions {
  const { config } = options;
  const flag = config.KEYHOOK_WITH_SIMULATOR;
  const withSimulator = flag === "1" || (options.mode === "dev" && flag !== "0");
  const withWorker = withSimulator || options.mode === "dev" || config.KEYHOOK_WITH_WORKER === "1";
  const children: ChildProcess[] = [];

  if (withSimulator) {
    // PROVIDER_URL moves both sides: the app calls it and the simulator listens on its port. A
    // PROVIDER_SIM_PORT of its own would leave the app calling the old port, so it is not used here.
    const providerUrl = new URL(config.PROVIDER_URL);
    const port = providerUrl.port || (providerUrl.protocol === "https:" ? "443" : "80");
    if (options.env.PROVIDER_SIM_PORT && options.env.PROVIDER_SIM_PORT !== port) {
      console.error(
        `keyhook: PROVIDER_SIM_PORT=${options.env.PROVIDER_SIM_PORT} ignored: the app calls ${config.PROVIDER_URL}; set PROVIDER_URL=http://127.0.0.1:${options.env.PROVIDER_SIM_PORT} to move both`,
      );
    }
    children.push(
      startChild("simulator/main.ts", {
        PROVIDER_SIM_DEMO: "1",
        // next dev compiles the webhook route on its first request, which can take longer than a
        // provider's usual 15 s on a busy machine: the first delivery waits instead of failing and
        // being retried five minutes later.
        ...(options.mode === "dev" ? { PROVIDER_SIM_DELIVERY_TIMEOUT_MS: "90000" } : {}),
        PROVIDER_SIM_FAULTS: DEMO_FAULTS,
        // The app verifies with WEBHOOK_SECRETS: sign with the first of them.
        PROVIDER_SIM_SECRET: config.WEBHOOK_SECRETS[0],
        ...options.env,
        PROVIDER_SIM_PORT: port,
        PROVIDER_SIM_EXIT_WITH_PARENT: "1",
      }),
    );
  }
  if (withWorker) {
    children.push(
      startChild("server/worker.ts", {
        PROVIDER_WEBHOOK_URL: `http://127.0.0.1:${options.appPort}/api/webhooks/keys`,
        ...options.env,
        KEYHOOK_EXIT_WITH_PARENT: "1",
      }),
    );
  }

  return {
    /** SIGTERM, then SIGKILL after 5 s. */
    async stop() {
      await Promise.all(children.map((child) => stopChild(child)));
    },
  };
}

function startChild(entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", entry], {
    env,
    stdio: ["pipe", "inherit", "inherit"],
    // Its own process group: a terminal Ctrl-C reaches only the launcher, which stops us in order.
    detached: true,
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
