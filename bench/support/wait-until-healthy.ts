// Polls a server the benchmark started until its /api/health answers 200, failing early when the
// process exits and after 60 s.
import type { ChildProcess } from "node:child_process";

export async function waitUntilHealthy(child: ChildProcess, baseUrl: string, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} before it was healthy`);
    const healthy = await fetch(`${baseUrl}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) return;
    if (Date.now() > deadline) throw new Error(`${what} did not become healthy within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
