// The shell of every harness in faults/: a log line stamped with the seconds since the start, the
// options read or a usage error (exit 2), everything started stopped again in reverse order
// whatever happens (an error, Ctrl-C), and the exit code: main's (0 passed, 1 a violation), or 2
// when the harness itself failed.
export type Harness<O> = {
  options: O;
  log: (line: string) => void;
  elapsedMs: () => number;
  /** Registers what stops something just started. */
  onCleanup: (cleanup: () => Promise<unknown>) => void;
  /** Runs main, cleans up and exits with its code. */
  run: (main: () => Promise<number>) => Promise<never>;
};

export function startHarness<O>(name: string, readOptions: () => O): Harness<O> {
  const started = performance.now();
  const elapsedMs = () => Math.round(performance.now() - started);
  let options: O;
  try {
    options = readOptions();
  } catch (error) {
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
  const cleanups: (() => Promise<unknown>)[] = [];
  let cleaning: Promise<void> | null = null;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const cleanup of cleanups.reverse())
        await cleanup().catch((error: unknown) => console.error(`${name}: cleanup: ${String(error)}`));
    })());
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => void cleanUp().then(() => process.exit(130)));

  return {
    options,
    log: (line) => console.log(`${name} [${(elapsedMs() / 1000).toFixed(1).padStart(6)} s] ${line}`),
    elapsedMs,
    onCleanup: (cleanup) => void cleanups.push(cleanup),
    async run(main) {
      let code: number;
      try {
        code = await main();
      } catch (error) {
        console.error(
          `${name}: the harness failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        code = 2;
      }
      await cleanUp();
      process.exit(code);
    },
  };
}
