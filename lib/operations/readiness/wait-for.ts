// Polls until `check` yields a value or the deadline passes (then null). A delivery through the
// provider is asynchronous; the check waits for what it needs to see, never a fixed time.
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<T | null> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}
