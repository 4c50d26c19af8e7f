// Runs the provider simulator as a real process on loopback (simulator/main.ts), with its journal
// in a fresh temporary directory, and talks to its control endpoints (/_sim/…).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import type { Faults } from "@/simulator/faults";

export type SimulatorProcess = {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  output: string[];
  control: <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => Promise<T>;
  setFaults: (faults: Partial<Faults>) => Promise<Faults>;
  stats: () => Promise<SimulatorStats>;
  /** Stops the process (SIGKILL by default: a crash); the journal stays for a restart. */
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  /** Kills it and removes its journal. */
  dispose: () => Promise<void>;
};

export type SimulatorStats = {
  hooks: number;
  events: number;
  messages: { pending: number; succeeded: number; failed: number };
  attempts: {
    total: number;
    succeeded: number;
    failed: number;
    manual: number;
    duplicate: number;
    lost_response: number;
    reordered: number;
  };
  queued: number;
  inFlight: number;
};

export async function startSimulator(
  options: { env?: Record<string, string>; dataDir?: string } = {},
): Promise<SimulatorProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "keyhook-sim-"));
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "simulator/main.ts"], {
    env: {
      ...process.env,
      PROVIDER_SIM_PORT: "0",
      PROVIDER_SIM_DATA_DIR: dataDir,
      PROVIDER_API_KEY: DEV_PROVIDER_API_KEY,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => output.push(line));
  // Its first line on stderr names the port it listens on (chosen by the system with port 0).
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`simulator exited with ${code}: ${output.join("")}`)));
    createInterface({ input: child.stderr! }).on("line", (line) => {
      output.push(line);
      const match = /^provider-sim: listening on http:\/\/[^:]+:(\d+) /.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  const url = `http://127.0.0.1:${port}`;

  const control = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const response = await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${DEV_PROVIDER_API_KEY}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`simulator ${method} ${route} → ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };

  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    await exited;
  };

  return {
    url,
    port,
    dataDir,
    child,
    output,
    control,
    setFaults: (faults) => control<Faults>("PUT", "/_sim/faults", faults),
    stats: () => control<SimulatorStats>("GET", "/_sim/stats"),
    kill,
    dispose: async () => {
      await kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
