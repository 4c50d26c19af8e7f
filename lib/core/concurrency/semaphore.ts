// A counting semaphore with a bounded queue. The dashboard's expensive work (password hashing,
// full CSV exports) runs through one of these so it can never take the whole process from
// ingest: `limit` run at once, `maxQueued` wait, anything beyond is refused at once (the caller
// answers "busy, try again") instead of piling up latency for everyone.
export class Semaphore {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly limit: number,
    readonly maxQueued: number,
  ) {}

  /** Waits for a slot; null at once when the queue is full. Call the release function exactly when done. */
  async acquire(): Promise<(() => void) | null> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.maxQueued) return null;
      // The releaser hands its slot straight over (running stays the same).
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }

  /** Runs `task` when a slot is free; returns `{ busy: true }` without running it if the queue is full. */
  async run<T>(task: () => Promise<T>): Promise<{ busy: false; value: T } | { busy: true }> {
    const release = await this.acquire();
    if (!release) return { busy: true };
    try {
      return { busy: false, value: await task() };
    } finally {
      release();
    }
  }

  get stats(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }
}
