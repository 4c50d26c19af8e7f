// CPU time of a process tree (a server and every descendant it started, whatever their process
// group: the launcher starts next-server detached), read from /proc/<pid>/stat: utime + stime of
// each live member. Sampled before and after a measured phase, the difference
// divided by the events applied is the CPU cost per event, comparable across servers on one machine.
import { readFileSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

type Sample = Map<number, number>;

type ProcStat = { pid: number; ppid: number; cpuMicros: number };

/** One process's /proc/<pid>/stat, or null when it has exited. */
function readStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After "(comm)": state ppid pgrp … ; utime and stime are fields 14 and 15 of the whole line.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      pid,
      ppid: Number(fields[1]),
      cpuMicros: ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / TICKS_PER_SECOND,
    };
  } catch {
    return null;
  }
}

function readAll(): ProcStat[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => readStat(Number(entry)))
    .filter((stat) => stat !== null);
}

/** The pids of `root` and all its descendants. */
export function processTree(root: number): number[] {
  return [...treeOf(root, readAll()).keys()];
}

/** CPU seconds (user + system) used so far by the live processes of `root`'s tree. */
export function treeCpuSeconds(root: number): number {
  let micros = 0;
  for (const p of treeOf(root, readAll()).values()) micros += p.cpuMicros;
  return micros / 1_000_000;
}

function treeOf(root: number, all: ProcStat[]): Map<number, ProcStat> {
  const tree = new Map<number, ProcStat>();
  const byPid = new Map(all.map((p) => [p.pid, p]));
  if (byPid.has(root)) tree.set(root, byPid.get(root)!);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (!tree.has(p.pid) && tree.has(p.ppid)) {
        tree.set(p.pid, p);
        grew = true;
      }
    }
  }
  return tree;
}

/** utime + stime (µs) of every live process of the tree under `root`. */
export function sampleGroupCpu(root: number): Sample {
  return new Map([...treeOf(root, readAll())].map(([pid, p]) => [pid, p.cpuMicros]));
}

/** utime + stime (µs) of each of `pids` still alive (e.g. PostgreSQL backends, which are no descendants of ours). */
export function samplePidsCpu(pids: number[]): Sample {
  return new Map(
    pids
      .map(readStat)
      .filter((stat) => stat !== null)
      .map((stat) => [stat.pid, stat.cpuMicros]),
  );
}

/** CPU µs the group spent between two samples (processes present in both, plus ones started since). */
export function cpuMicrosBetween(before: Sample, after: Sample): number {
  let total = 0;
  for (const [pid, micros] of after) total += micros - (before.get(pid) ?? 0);
  return total;
}

/** Where a tree's CPU time went (user vs kernel) and how often its main threads were switched out. */
export type GroupDetail = {
  userMicros: number;
  systemMicros: number;
  voluntarySwitches: number;
  involuntarySwitches: number;
};

/**
 * user and system CPU µs of every live process of the tree, and the context switches of each
 * process's main thread (/proc/<pid>/status): voluntary ones are waits (epoll, a blocking read),
 * involuntary ones preemption — which is how time a profiler attributes to a syscall (`writev`)
 * can be wall time off the CPU rather than CPU time.
 */
export function sampleGroupDetail(root: number): Map<number, GroupDetail> {
  const detail = new Map<number, GroupDetail>();
  for (const pid of treeOf(root, readAll()).keys()) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const count = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
      detail.set(pid, {
        userMicros: (Number(fields[11]) * 1_000_000) / TICKS_PER_SECOND,
        systemMicros: (Number(fields[12]) * 1_000_000) / TICKS_PER_SECOND,
        voluntarySwitches: count("voluntary_ctxt_switches"),
        involuntarySwitches: count("nonvoluntary_ctxt_switches"),
      });
    } catch {
      // exited meanwhile
    }
  }
  return detail;
}

/** The difference of two detail samples, summed over the tree (processes in `after`). */
export function detailBetween(before: Map<number, GroupDetail>, after: Map<number, GroupDetail>): GroupDetail {
  const total: GroupDetail = { userMicros: 0, systemMicros: 0, voluntarySwitches: 0, involuntarySwitches: 0 };
  for (const [pid, a] of after) {
    const b = before.get(pid);
    total.userMicros += a.userMicros - (b?.userMicros ?? 0);
    total.systemMicros += a.systemMicros - (b?.systemMicros ?? 0);
    total.voluntarySwitches += a.voluntarySwitches - (b?.voluntarySwitches ?? 0);
    total.involuntarySwitches += a.involuntarySwitches - (b?.involuntarySwitches ?? 0);
  }
  return total;
}
