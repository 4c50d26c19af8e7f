import "server-only";
// Full CSV exports (up to millions of rows) run CSV_EXPORT_CONCURRENCY at a time per process,
// a few more wait, the rest are answered 503 + Retry-After. Each running export holds at most
// one database connection (its keyset pages are sequential) and rests between pages, so
// exports share the process with ingest instead of starving it.
import { Semaphore } from "../../core/concurrency/semaphore";
import { env } from "../../core/config/env";
import { AppError } from "../../core/errors";

let limiter: Semaphore | undefined;

function exportLimiter(): Semaphore {
  limiter ??= new Semaphore(env().CSV_EXPORT_CONCURRENCY, EXPORTS_QUEUED);
  return limiter;
}

const EXPORTS_QUEUED = 4;

/** The lines, holding an export slot until they end, fail or the client goes away; null when busy. */
export async function withExportSlot(lines: AsyncIterable<string>): Promise<AsyncIterable<string> | null> {
  const release = await exportLimiter().acquire();
  if (!release) return null;
  const inner = lines[Symbol.asyncIterator]();
  let lastPageMs = 0;
  const iterator: AsyncIterator<string> = {
    async next() {
      // Paced: after a page that took t ms (query + CSV), rest t ms before the next, so one export
      // uses at most about half of the process however fast the client reads; ingest's callbacks
      // run in the gaps. A million rows take about twice as long; nothing else waits on them.
      await new Promise((resolve) =>
        lastPageMs > 0 ? setTimeout(resolve, Math.min(lastPageMs, 200)) : setImmediate(resolve),
      );
      const started = performance.now();
      try {
        const next = await inner.next();
        lastPageMs = performance.now() - started;
        if (next.done) release();
        return next;
      } catch (error) {
        release();
        throw error;
      }
    },
    // Also when the stream is cancelled before its first page: the slot is never leaked.
    async return() {
      release();
      return (await inner.return?.()) ?? { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

/** Answered (through http/to-response.ts) when every export slot and queue place is taken. */
export function exportsBusyError(): AppError {
  return new AppError("unavailable", "Too many exports are running. Try again in a minute.", { retryAfterSeconds: 30 });
}
