import "server-only";
// Small process probes for the launcher. Linux answers through /proc; elsewhere we fall back to
// kill(pid, 0), which cannot tell a zombie from a live process.
import { readFileSync, readlinkSync } from "node:fs";

export type ProcessState = { alive: false } | { alive: true; comm?: string; ppid?: number; cwd?: string };

export function processState(pid: number): ProcessState {
  try {
    // /proc/<pid>/stat is "pid (comm) state ppid …"; comm may contain spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const [state, ppid] = stat.slice(close + 2).split(" ");
    // kill(pid, 0) succeeds on a zombie, but a zombie holds no port and no data directory.
    if (state === "Z" || state === "X") return { alive: false };
    let cwd: string | undefined;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      // Another user's process: we still know it is alive.
    }
    return { alive: true, comm, ppid: Number(ppid), cwd };
  } catch {
    try {
      process.kill(pid, 0);
      return { alive: true };
    } catch (error) {
      return { alive: (error as NodeJS.ErrnoException).code === "EPERM" };
    }
  }
}

/** Reads one variable of another process's environment (Linux; undefined when not readable). */
export function processEnvVar(pid: number, name: string): string | undefined {
  try {
    const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    const entry = entries.find((e) => e.startsWith(`${name}=`));
    return entry?.slice(name.length + 1);
  } catch {
    return undefined;
  }
}

/** Polls until the process is gone (or a zombie); false when it is still alive after timeoutMs. */
export async function waitForProcessExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processState(pid).alive) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
