import "server-only";
// If the launcher is SIGKILLed (or crashes hard) its children live on: Next keeps the port and
// PostgreSQL the data directory. A tiny watchdog process holds a pipe from the launcher; the
// kernel closes that pipe whenever the launcher dies, however it dies, and the watchdog then
// stops Next's process group and PostgreSQL in the launcher's order. Nothing in Next has to
// cooperate. On an orderly shutdown the launcher dismisses the watchdog first.
import { spawn } from "node:child_process";

const WATCHDOG = `
const [nextGroup, postmaster] = process.argv.slice(1).map(Number);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
const gone = async (pid, ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100)))
    if (!alive(pid)) return true;
  return !alive(pid);
};
const signal = (pid, sig) => { try { process.kill(pid, sig); } catch {} };
process.stdin.on("data", () => {});
process.stdin.on("close", async () => {
  if (nextGroup > 0) {
    signal(-nextGroup, "SIGTERM");
    if (!(await gone(-nextGroup, 10000))) signal(-nextGroup, "SIGKILL");
  }
  if (postmaster > 0) {
    signal(postmaster, "SIGINT");
    if (!(await gone(postmaster, 15000))) signal(postmaster, "SIGQUIT");
  }
  process.exit(0);
});
`;

/** Returns `dismiss`, to call before an orderly shutdown. */
export function startOrphanGuard(targets: { nextGroup?: number; postmaster?: number }): { dismiss(): void } {
  const guard = spawn(
    process.execPath,
    ["-e", WATCHDOG, String(targets.nextGroup ?? 0), String(targets.postmaster ?? 0)],
    {
      // Its own session: a terminal Ctrl-C must not kill it; stdin is the pipe it watches.
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    },
  );
  // Never keeps the launcher alive by itself.
  guard.unref();
  (guard.stdin as unknown as { unref?: () => void }).unref?.();
  return {
    dismiss: () => {
      guard.kill("SIGKILL");
    },
  };
}
