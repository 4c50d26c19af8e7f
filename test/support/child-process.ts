// Starts and stops real child processes for fault tests; every child is killed at the end.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export type RunningServer = {
  child: ChildProcess;
  port: number;
  output: string[];
  kill: (signal?: NodeJS.Signals) => Promise<void>;
};

export async function startIngestServer(
  env: Record<string, string>,
  script = "test/support/ingest-server.ts",
): Promise<RunningServer> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", script], {
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`ingest server exited with ${code}: ${output.join("")}`)));
    lines.on("line", (line) => {
      output.push(line);
      const match = /^\{"port":(\d+)\}$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    await exited;
  };
  return { child, port, output, kill };
}

/** Polls until `check` holds; the test's own timeout bounds it. No fixed sleeps in assertions. */
export async function waitUntil(check: () => Promise<boolean> | boolean, intervalMs = 20): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, intervalMs));
}
