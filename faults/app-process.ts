// The app under test: the PRODUCTION build started exactly as `npm start` does (scripts/boot.ts
// start → migrations → `next start`), on a fixed port so the simulator keeps delivering to the
// same address across restarts. `crash()` is a SIGKILL of the launcher, Next and next-server at
// once: no shutdown hook runs, in-flight requests die wherever they are (before the commit,
// between the commit and the response, …).
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { killProcesses, killTree, processTree, waitUntilGone } from "./process-tree";
import { TEST_AUDIT_SIGNING_KEY, TEST_ENCRYPTION_KEYS } from "../test/support/encryption-keys";

export type AppProcess = {
  baseUrl: string;
  /** Starts it and waits until /api/health answers 200; returns how long that took. */
  start(): Promise<{ bootMs: number }>;
  /**
   * SIGKILL of the whole tree; returns the number of processes killed. With `at`, the tree is read
   * first and the signals go out the moment `at` resolves (e.g. just after a delivery reached the
   * app, to land between its commit and its response).
   */
  crash(options?: { at?: Promise<void> }): Promise<{ killed: number }>;
  /** Orderly stop (SIGTERM to the launcher, which stops Next first), SIGKILL as a fallback. */
  stop(): Promise<void>;
};

export function createAppProcess(options: {
  port: number;
  databaseUrl: string;
  webhookSecret: string;
  logFile: string;
  /** Where `.next` is: the run's snapshot of the build (build-snapshot.ts). */
  appDir: string;
  /** More settings for the app (e.g. the worker beside it). */
  env?: Record<string, string>;
}): AppProcess {
  const launcherScript = path.resolve("scripts/boot.ts");
  const baseUrl = `http://127.0.0.1:${options.port}`;
  // One session secret for the whole run: the app is "the same deployment" after every restart.
  const sessionSecret = randomBytes(32).toString("hex");
  let launcher: ChildProcess | null = null;

  const healthy = () =>
    fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );

  return {
    baseUrl,
    async start() {
      const started = performance.now();
      const log = openSync(options.logFile, "a");
      const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", launcherScript, "start"], {
        cwd: options.appDir,
        // Its own process group, so nothing we do to it reaches the harness.
        detached: true,
        stdio: ["ignore", log, log],
        env: {
          ...process.env,
          NODE_ENV: "production",
          NEXT_TELEMETRY_DISABLED: "1",
          PORT: String(options.port),
          DATABASE_URL: options.databaseUrl,
          WEBHOOK_SECRETS: options.webhookSecret,
          NEXTAUTH_SECRET: sessionSecret,
          SECRETS_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
          AUDIT_SIGNING_KEY: TEST_AUDIT_SIGNING_KEY,
          // One JSON line per delivery would cost the 2 cores more than the ingest itself.
          LOG_LEVEL: "warn",
          KEYHOOK_WITH_SIMULATOR: "0",
          ...options.env,
        },
      });
      closeSync(log);
      launcher = child;
      const deadline = Date.now() + 90_000;
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(
            `the app exited (${child.exitCode ?? child.signalCode}) before it was healthy; see ${options.logFile}`,
          );
        if (await healthy()) break;
        if (Date.now() > deadline) throw new Error(`the app was not healthy within 90 s; see ${options.logFile}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return { bootMs: Math.round(performance.now() - started) };
    },
    async crash(crashOptions = {}) {
      const child = launcher;
      launcher = null;
      if (!child?.pid) return { killed: 0 };
      const tree = processTree(child.pid);
      await crashOptions.at;
      const pids = killProcesses(tree);
      if (!(await waitUntilGone(pids, 10_000))) throw new Error(`processes ${pids.join(", ")} survived SIGKILL`);
      return { killed: pids.length };
    },
    async stop() {
      const child = launcher;
      launcher = null;
      if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
      const tree = processTree(child.pid).map((s) => s.pid);
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const inTime = await Promise.race([
        exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 15_000).unref()),
      ]);
      // Whatever is left (an orphaned next-server, the watchdog) goes the hard way.
      if (!inTime || !(await waitUntilGone(tree, 3_000))) {
        for (const pid of tree) killTree(pid);
        await waitUntilGone(tree, 5_000);
      }
    },
  };
}
