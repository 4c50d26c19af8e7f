// How quickly `npm run dev` gets a newcomer going: the time from the command to the first answer
// of the app (GET /signin) and to the first event the provider simulator sends showing on the
// Ledger page, for a first start (a fresh data folder: PostgreSQL's initdb, every migration, the
// demo seed) and for a restart on the same folder. Figures, not a pass/fail: a regression shows
// against the history (bench/results/history.ndjson).
//
//   npm run bench:dev-start   (ports: BENCH_APP_PORT, BENCH_PG_PORT, BENCH_RECEIVER_PORT for the simulator)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { signInCookie } from "../test/support/sign-in";
import { startDevStack } from "../test/support/dev-stack";
import { writeResult } from "./support/results";

const appPort = Number(process.env.BENCH_APP_PORT ?? 4600);
const pgPort = Number(process.env.BENCH_PG_PORT ?? 54649);
const providerPort = Number(process.env.BENCH_RECEIVER_PORT ?? 4604);
// A simulator event id (the demo seed's are evt_demo_…).
const SIMULATED_EVENT = /evt_[0-9a-f]{24}/;

const dataDir = mkdtempSync(path.join(tmpdir(), "keyhook-dev-start-"));
let running: { stop(): Promise<void> } | null = null;
// Interrupted: the stack and its data folder go too.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(
    signal,
    () =>
      void (running?.stop() ?? Promise.resolve()).finally(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(130);
      }),
  );

async function measure(dataDir: string, label: string) {
  const stack = startDevStack({
    port: appPort,
    env: {
      KEYHOOK_DATA_DIR: dataDir,
      KEYHOOK_PG_PORT: String(pgPort),
      PROVIDER_URL: `http://127.0.0.1:${providerPort}`,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  running = stack;
  try {
    const firstAnswerMs = await stack.waitForAnswer("/signin");
    const cookie = await signInCookie(stack.url, "admin@keyhook.test");
    let firstEventMs: number | null = null;
    const deadline = Date.now() + 300_000;
    while (firstEventMs === null && Date.now() < deadline) {
      const page = await fetch(`${stack.url}/ledger`, { headers: { cookie } }).then((r) => r.text());
      if (SIMULATED_EVENT.test(page)) firstEventMs = performance.now() - stack.startedAt;
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const result = {
      run: label,
      firstAnswerSeconds: Math.round(firstAnswerMs / 100) / 10,
      firstEventOnScreenSeconds: firstEventMs === null ? null : Math.round(firstEventMs / 100) / 10,
    };
    console.log(
      `${label}: first answer ${result.firstAnswerSeconds} s, first simulated event on /ledger ${result.firstEventOnScreenSeconds ?? "none within 300"} s`,
    );
    return result;
  } finally {
    await stack.stop();
    running = null;
  }
}

try {
  const runs = [await measure(dataDir, "first start"), await measure(dataDir, "restart")];
  writeResult("dev-start", { runs });
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
