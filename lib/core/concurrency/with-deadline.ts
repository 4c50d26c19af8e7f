// Bounds how long a caller waits for work it cannot cancel. PostgreSQL can hold a COMMIT for as
// long as no synchronous standby confirms it (a stalled standby, a failover in progress), and
// neither Prisma's transaction timeout nor lock_timeout covers that wait. Past the deadline the
// caller gets DeadlineExceeded and answers "unknown, retry"; the work itself runs on, and its
// late result or error is dropped here rather than becoming an unhandled rejection.
export class DeadlineExceeded extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = "DeadlineExceeded";
  }
}

export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(what, ms)), ms);
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
