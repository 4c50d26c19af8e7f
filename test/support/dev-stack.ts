// `npm run dev` as a newcomer runs it (scripts/boot.ts dev: next dev, the provider simulator and
// the worker), as a real process: for the README's "Try it" test and bench/dev-start.ts. It is
// stopped the way a person stops it (SIGTERM to npm, which the launcher turns into an orderly
// shutdown), with a SIGKILL of its process group as the last resort.
import { spawn } from "node:child_process";

export type DevStack = {
  url: string;
  /** When the process was started (performance.now()). */
  startedAt: number;
  output: () => string;
  /** Resolves with the ms since start once `path` answers (any status below 500). */
  waitForAnswer: (path: string, options?: { timeoutMs?: number; headers?: Record<string, string> }) => Promise<number>;
  stop: () => Promise<void>;
};

export function startDevStack(options: { port: number; env: Record<string, string | undefined> }): DevStack {
  // The launcher decides the mode; a test runner's NODE_ENV=test must not reach next dev.
  const env = Object.fromEntries(
    Object.entries({ ...process.env, ...options.env, PORT: String(options.port) }).filter(
      ([name]) => name !== "NODE_ENV",
    ),
  );
  const startedAt = performance.now();
  const child = spawn("npm", ["run", "dev"], {
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${options.port}`;

  return {
    url,
    startedAt,
    output: () => output,
    async waitForAnswer(path, { timeoutMs = 300_000, headers } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`npm run dev exited with ${child.exitCode}:\n${output}`);
        try {
          const response = await fetch(url + path, {
            redirect: "manual",
            headers,
            signal: AbortSignal.timeout(60_000),
          });
          if (response.status < 500) return performance.now() - startedAt;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`${path} did not answer within ${timeoutMs} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const stopped = await Promise.race([
        exited.then(() => true),
        // Unref'd: a stack that stops in time must not keep the caller alive for the rest of the wait.
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 45_000).unref()),
      ]);
      if (!stopped) {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
        await exited;
      }
    },
  };
}
