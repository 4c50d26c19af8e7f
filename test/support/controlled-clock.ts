// A clock the caller moves: while installed, `new Date()` and `Date.now()` in this process read
// the time it was set to (every lib/ service, Prisma's @default(now()) included, stamps rows with
// it). Durations (performance.now), timers and PostgreSQL's own now() keep real time. Dates made
// while it is installed are ControlledDates, so `instanceof Date` (pg, zod) holds for them.
export type ControlledClock = {
  now(): Date;
  set(at: Date): void;
  advance(ms: number): void;
  uninstall(): void;
};

export function installControlledClock(start: Date): ControlledClock {
  const RealDate = Date;
  let current = start.getTime();
  class ControlledDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(current);
      else super(...(args as [string | number | Date]));
    }
    static override now(): number {
      return current;
    }
  }
  globalThis.Date = ControlledDate as DateConstructor;
  return {
    now: () => new ControlledDate(current),
    set(at) {
      current = at.getTime();
    },
    advance(ms) {
      current += ms;
    },
    uninstall() {
      globalThis.Date = RealDate;
    },
  };
}
