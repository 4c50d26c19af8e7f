import "server-only";
// What to do with a postmaster.pid found in the data directory before we start PostgreSQL.
// PostgreSQL only ignores the file when its PID is dead; a zombie, or a PID reused by another
// program after a container restart, makes it refuse to start ("lock file … already exists").
import { readFile, realpath, rm } from "node:fs/promises";
import path from "node:path";
import { processEnvVar, processState, waitForProcessExit } from "./process-info";

/** Set in the postmaster's environment: the PID of the process that started (and will stop) it. */
export const OWNER_ENV = "KEYHOOK_PG_OWNER_PID";

export type ExistingPostmaster =
  | { kind: "none" }
  /** Alive and started by a process that is still its parent (another launcher): share it. */
  | { kind: "running"; pid: number; port: number }
  /** Alive, but the process that started it is gone (it was SIGKILLed): stop it, start afresh. */
  | { kind: "orphan"; pid: number };

export async function inspectPostmaster(dataDir: string): Promise<ExistingPostmaster> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  let lines: string[];
  try {
    lines = (await readFile(pidFile, "utf8")).split("\n");
  } catch {
    return { kind: "none" };
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  const state = Number.isInteger(pid) && pid > 0 ? processState(pid) : { alive: false as const };
  // The postmaster's working directory is its data directory: a live "postgres" elsewhere is a
  // reused PID, not ours.
  const ours =
    state.alive &&
    (state.comm === undefined || state.comm === "postgres") &&
    (state.cwd === undefined || state.cwd === (await realpath(dataDir)));
  if (!ours) {
    await rm(pidFile, { force: true });
    return { kind: "none" };
  }
  const owner = Number(processEnvVar(pid, OWNER_ENV));
  if (state.ppid !== undefined && owner > 0 && state.ppid !== owner) return { kind: "orphan", pid };
  return { kind: "running", pid, port };
}

/** Fast shutdown of a postmaster that is not our child (so we poll rather than wait for 'exit'). */
export async function stopForeignPostmaster(pid: number): Promise<void> {
  process.kill(pid, "SIGINT");
  if (await waitForProcessExit(pid, 15_000)) return;
  // SIGQUIT: immediate shutdown; PostgreSQL runs crash recovery at the next start.
  process.kill(pid, "SIGQUIT");
  if (!(await waitForProcessExit(pid, 5_000))) throw new Error(`PostgreSQL (pid ${pid}) did not stop`);
}
