// Turns an async sequence of CSV text (lines or whole pages of lines) into a byte stream that is
// pulled as the client reads, with a bounded read-ahead: at most READ_AHEAD_BYTES of encoded
// chunks wait in the stream's queue, plus the one page of text being cut into chunks. An export
// of ten million rows never sits in memory, and a client that stops reading stops the database
// paging (Next's response writer waits for the socket's `drain`, so the queue fills and `pull`
// is no longer called).
//
// Why chunks of at most CHUNK_CHARS instead of one Uint8Array per page: a chunk's bytes live
// outside the V8 heap and are freed only when its wrapper is collected. A page-sized chunk
// (~150 KB) that waits on a slow socket survives the young-generation collections and is
// promoted; promoted buffers are only freed by a full collection, which V8 starts when external
// memory has grown by its soft limit (64 MiB) — the size of the flat RSS growth bench:dashboard
// measured. Small chunks are written and dropped while young (bench:export measures the result).
export const CHUNK_CHARS = 16 * 1024;
export const READ_AHEAD_BYTES = 64 * 1024;

export function csvStream(lines: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = lines[Symbol.asyncIterator]();
  let pending = "";
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          // Every pull enqueues or closes: a pull that did neither would never be called again.
          while (pending.length === 0) {
            const next = await iterator.next();
            if (next.done) return controller.close();
            pending = next.value;
          }
          const cut = cutAt(pending);
          controller.enqueue(encoder.encode(pending.slice(0, cut)));
          pending = pending.slice(cut);
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        pending = "";
        await iterator.return?.();
      },
    },
    { highWaterMark: READ_AHEAD_BYTES, size: (chunk) => chunk.byteLength },
  );
}

/**
 * Where the next chunk ends: after the last newline within CHUNK_CHARS (never inside a UTF-16
 * surrogate pair, which a newline can never be part of), else after the first newline beyond it
 * (one very long line), else the whole text.
 */
function cutAt(text: string): number {
  if (text.length <= CHUNK_CHARS) return text.length;
  const within = text.lastIndexOf("\n", CHUNK_CHARS - 1);
  if (within >= 0) return within + 1;
  const beyond = text.indexOf("\n", CHUNK_CHARS);
  return beyond >= 0 ? beyond + 1 : text.length;
}
