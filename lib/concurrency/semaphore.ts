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

  /** Runs `task` when a slot is free; returns `{ busy: true }` without running it if the queue is full. */
  async run<T>(task: () => Promise<T>): Promise<{ busy: false; value: T } | { busy: true }> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.maxQueued) return { busy: true };
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return { busy: false, value: await task() };
    } finally {
      // Hand the slot straight to the next waiter (running stays the same), or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Takes a slot for as long as the caller holds it (a streamed response); null when busy. */
  tryAcquire(): (() => void) | null {
    if (this.running >= this.limit) return null;
    this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }

  get stats(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }
}
