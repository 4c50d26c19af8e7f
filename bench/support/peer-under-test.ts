// Starts the baseline peer (bench/peer/consumer.ts) on its own database of the benchmark's
// PostgreSQL, in its own process group so its CPU time can be read like the app's.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import pg from "pg";
import type { LoadTarget } from "./load-phase";

export type PeerUnderTest = LoadTarget & { pgid: number; stop: () => Promise<void> };

export async function startPeer(options: { databaseUrl: string; port: number }): Promise<PeerUnderTest> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/peer/consumer.ts"], {
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, DATABASE_URL: options.databaseUrl, PORT: String(options.port), NODE_ENV: "production" },
  });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the peer exited with ${code} before listening`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.startsWith('{"port"')) resolve();
    });
  });
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
  return {
    baseUrl: `http://127.0.0.1:${options.port}`,
    pgid: child.pid!,
    // The peer keeps no outcome column: every claimed event was applied.
    outcomeCounts: async () => {
      const { rows } = await pool.query<{ n: string }>("SELECT count(*) AS n FROM webhook_events");
      return { applied: Number(rows[0]!.n) };
    },
    stop: async () => {
      await pool.end();
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      await exited;
    },
  };
}
