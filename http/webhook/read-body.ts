// Reads a request body as raw bytes without ever holding more than the limit in memory. A body
// that ends before its Content-Length (the client hung up, or the stream broke) is "aborted",
// not an error: the delivery gets a 400 and a receipt like any other bad body.

type BodyResult =
  { ok: true; text: string; bytes: number } | { ok: false; reason: "too_large" | "aborted"; bytes: number };

export async function readBodyWithLimit(request: Request, limitBytes: number): Promise<BodyResult> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limitBytes) {
    await request.body?.cancel().catch(() => undefined);
    return { ok: false, reason: "too_large", bytes: declared };
  }
  if (!request.body) return { ok: true, text: "", bytes: 0 };

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      return { ok: false, reason: "aborted", bytes: total };
    }
    const { done, value } = chunk;
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => undefined);
      return { ok: false, reason: "too_large", bytes: total };
    }
    chunks.push(value);
  }
  return { ok: true, text: Buffer.concat(chunks, total).toString("utf8"), bytes: total };
}
