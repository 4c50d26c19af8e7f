// Runs `server/worker.ts` as a real process (so a test can SIGKILL it mid-send).
import { spawn, type ChildProcess } from "node:child_process";

export type WorkerProcess = { child: ChildProcess; output: string[]; kill: (signal?: NodeJS.Signals) => Promise<void> };

export function startWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "server/worker.ts"], {
    env: { ...process.env, LOG_LEVEL: "info", OUTBOX_POLL_INTERVAL_MS: "20", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    await exited;
  };
  return { child, output, kill };
}
