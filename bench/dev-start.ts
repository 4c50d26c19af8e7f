// How quickly `npm run dev` gets a newcomer going, from the command to:
//   - the first answer of the sign-in page;
//   - the signed-in landing page (the Overview) answering;
//   - the first event the provider simulator sends showing on that page (a signed-in admin, as a
//     newcomer who signs in as soon as the page answers; the page's HTML polled every 500 ms).
// Runs: a cold start (a fresh data folder: initdb, every migration, the demo seed; and no
// compiled pages: .next/dev removed), then a restart on the same folder, then both again beside
// a CPU-bound job the benchmark starts itself (BENCH_BUSY_WORKERS busy loops, default 4: a load of
// 4–5 on the 2-core machine of the targets). Targets (docs/performance.md, "Dev start"): first
// event on screen within 10 s cold, 20 s cold under load, 5 s on a restart.
//
//   npm run bench:dev-start              (ports: BENCH_APP_PORT, BENCH_PG_PORT, BENCH_RECEIVER_PORT)
//   npm run bench:dev-start -- --short   (CI: one cold start; fails only when no event shows within 120 s)
//
// It removes .next/dev of this checkout: not beside another `npm run dev` of the same folder.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { signInCookie } from "../test/support/sign-in";
import { startDevStack, type DevStack } from "../test/support/dev-stack";
import { writeResult } from "./support/results";

const short = process.argv.includes("--short");
const appPort = Number(process.env.BENCH_APP_PORT ?? 4600);
const pgPort = Number(process.env.BENCH_PG_PORT ?? 54649);
const providerPort = Number(process.env.BENCH_RECEIVER_PORT ?? 4604);
const busyWorkers = Number(process.env.BENCH_BUSY_WORKERS ?? 4);
// --short: a broken start, not a slow one, fails CI.
const EVENT_DEADLINE_MS = short ? 120_000 : 300_000;
// A simulator event id (the demo seed's are evt_demo_…).
const SIMULATED_EVENT = /evt_[0-9a-f]{24}/;
const LANDING = "/overview";

const dataDir = mkdtempSync(path.join(tmpdir(), "keyhook-dev-start-"));
let running: DevStack | null = null;
let busy: ChildProcess[] = [];
const cleanUp = async () => {
  for (const worker of busy) worker.kill("SIGKILL");
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
};
// Interrupted: the stack, the busy loops and the data folder go too.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => void cleanUp().finally(() => process.exit(130)));

type Run = {
  run: string;
  loadavgAtStart: number;
  firstAnswerSeconds: number;
  databaseReadySeconds: number | null;
  readyLineSeconds: number | null;
  landingPageSeconds: number | null;
  firstEventOnScreenSeconds: number | null;
};

const seconds = (ms: number) => Math.round(ms / 100) / 10;

async function measure(label: string, options: { cold: boolean }): Promise<Run> {
  if (options.cold) {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(".next/dev", { recursive: true, force: true });
  }
  const loadavgAtStart = Math.round(loadavg()[0]! * 10) / 10;
  const stack = startDevStack({
    port: appPort,
    env: {
      KEYHOOK_DATA_DIR: dataDir,
      KEYHOOK_PG_PORT: String(pgPort),
      PROVIDER_URL: `http://127.0.0.1:${providerPort}`,
      NEXT_TELEMETRY_DISABLED: "1",
      LOG_LEVEL: "warn",
    },
  });
  running = stack;
  const since = () => performance.now() - stack.startedAt;
  try {
    const firstAnswerMs = await stack.waitForAnswer("/signin", { timeoutMs: EVENT_DEADLINE_MS });
    console.log(`${label}: /signin answered at ${seconds(firstAnswerMs)} s`);
    const deadline = stack.startedAt + EVENT_DEADLINE_MS;
    let landingMs: number | null = null;
    let firstEventMs: number | null = null;
    let cookie: string | null = null;
    let lastError = "";
    while (firstEventMs === null && performance.now() < deadline) {
      try {
        if (cookie === null) {
          cookie = await beforeDeadline(signInCookie(stack.url, "admin@keyhook.test"), deadline);
          console.log(`${label}: signed in at ${seconds(since())} s`);
        }
        const response = await fetch(stack.url + LANDING, {
          headers: { cookie },
          redirect: "manual",
          signal: AbortSignal.timeout(Math.max(Math.ceil(deadline - performance.now()), 1)),
        });
        const page = await response.text();
        if (response.status === 200) {
          if (landingMs === null) console.log(`${label}: ${LANDING} answered at ${seconds((landingMs = since()))} s`);
          if (SIMULATED_EVENT.test(page)) firstEventMs = since();
        }
      } catch (error) {
        // Still compiling, or the sign-in not possible yet: said once per new reason.
        const reason = error instanceof Error ? error.message : String(error);
        if (reason !== lastError) console.log(`${label}: at ${seconds(since())} s: ${(lastError = reason)}`);
      }
      if (firstEventMs === null) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const ready = /keyhook: ready \((\d+(?:\.\d+)?) s\)/.exec(stack.output());
    const database = /keyhook: database ready: .*\((\d+(?:\.\d+)?) s\)/.exec(stack.output());
    const result: Run = {
      run: label,
      loadavgAtStart,
      firstAnswerSeconds: seconds(firstAnswerMs),
      databaseReadySeconds: database ? Number(database[1]) : null,
      readyLineSeconds: ready ? Number(ready[1]) : null,
      landingPageSeconds: landingMs === null ? null : seconds(landingMs),
      firstEventOnScreenSeconds: firstEventMs === null ? null : seconds(firstEventMs),
    };
    console.log(
      `${label} (load ${loadavgAtStart}): sign-in answers ${result.firstAnswerSeconds} s, database ready ${result.databaseReadySeconds ?? "-"} s, "ready" line ${result.readyLineSeconds ?? "-"} s, ${LANDING} ${result.landingPageSeconds ?? "-"} s, first simulated event on it ${result.firstEventOnScreenSeconds ?? `none within ${EVENT_DEADLINE_MS / 1000}`} s`,
    );
    if (firstEventMs === null) console.log(stack.output().slice(-4000));
    return result;
  } finally {
    await stack.stop();
    running = null;
  }
}

/** `work`, or a rejection once `deadline` (performance.now()) has passed. */
function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("deadline passed")), Math.max(deadline - performance.now(), 0));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** `count` node processes spinning on one core each, until killed. */
function startBusyLoops(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
}

try {
  const runs: Run[] = [];
  runs.push(await measure("cold start", { cold: true }));
  if (!short) {
    runs.push(await measure("restart", { cold: false }));
    busy = startBusyLoops(busyWorkers);
    runs.push(await measure(`cold start beside ${busyWorkers} busy loops`, { cold: true }));
    runs.push(await measure(`restart beside ${busyWorkers} busy loops`, { cold: false }));
    for (const worker of busy) worker.kill("SIGKILL");
    busy = [];
  }
  // --short prints its figures only: bench/results keeps the full runs.
  if (!short)
    writeResult("dev-start", { targets: { coldSeconds: 10, coldUnderLoadSeconds: 20, restartSeconds: 5 }, runs });
  if (runs.some((run) => run.firstEventOnScreenSeconds === null)) {
    console.error(`dev-start: no simulated event on ${LANDING} within ${EVENT_DEADLINE_MS / 1000} s`);
    process.exitCode = 1;
  }
} finally {
  await cleanUp();
}
