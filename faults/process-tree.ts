// SIGKILL of a whole process tree, the way a crash or an OOM kill ends it. The launcher puts
// `next start` in a process group of its own and its watchdog in a session of its own, so
// killing the launcher's group alone would leave next-server serving: we walk /proc instead.
import { readdirSync, readFileSync } from "node:fs";

export type ProcStat = { pid: number; ppid: number; pgid: number; state: string };

function readStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses.
    const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(ppid), pgid: Number(pgid), state: state! };
  } catch {
    return null;
  }
}

/** The process and everything below it that is still alive (zombies excluded). */
export function processTree(root: number): ProcStat[] {
  const all = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => readStat(Number(entry)))
    .filter((s): s is ProcStat => s !== null && s.state !== "Z" && s.state !== "X");
  const tree: ProcStat[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const self = all.find((s) => s.pid === pid);
    if (self) tree.push(self);
    for (const child of all) if (child.ppid === pid) queue.push(child.pid);
  }
  return tree;
}

/** SIGKILLs every process of the tree and every process group one of them leads; returns the pids hit. */
export function killTree(root: number): number[] {
  return killProcesses(processTree(root));
}

/** The same for a tree read beforehand: reading /proc takes milliseconds, a SIGKILL microseconds. */
export function killProcesses(tree: ProcStat[]): number[] {
  const signal = (target: number) => {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // ESRCH: already gone
    }
  };
  // Groups first, so a process forked a moment ago inside a group goes too.
  for (const group of new Set(tree.filter((s) => s.pgid === s.pid).map((s) => s.pgid))) signal(-group);
  for (const s of tree) signal(s.pid);
  return tree.map((s) => s.pid);
}

/** Polls until none of the pids is alive (zombies count as gone). */
export async function waitUntilGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter((pid) => {
      const s = readStat(pid);
      return s !== null && s.state !== "Z" && s.state !== "X";
    });
    if (alive.length === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
