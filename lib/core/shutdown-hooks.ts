// What must be closed when a replica stops (the Prisma pools, the span exporter), registered by
// the code that opened it and run by the production server (server/serve.ts) after the last
// request in flight has been answered. Kept on globalThis: Next bundles the app's copy of this
// module separately from the server's, and both must see one list.
type ShutdownHook = { name: string; run: () => Promise<void> | void };

const KEY = Symbol.for("keyhook.shutdown-hooks");

function hooks(): ShutdownHook[] {
  const holder = globalThis as { [KEY]?: ShutdownHook[] };
  return (holder[KEY] ??= []);
}

export function onShutdown(name: string, run: ShutdownHook["run"]): void {
  hooks().push({ name, run });
}

/** Runs every hook once, the last registered first; returns the names of those that failed. */
export async function runShutdownHooks(report: (name: string, error: unknown) => void): Promise<string[]> {
  const failed: string[] = [];
  for (const hook of hooks().splice(0).reverse()) {
    try {
      await hook.run();
    } catch (error) {
      failed.push(hook.name);
      report(hook.name, error);
    }
  }
  return failed;
}
