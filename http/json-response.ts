// A JSON answer, for a route's own result and for an AppError alike.
/**
 * Serialised here, with its length: Next then answers with Content-Length instead of chunked
 * encoding, and its compression middleware leaves a body this small alone (below its 1 KiB
 * threshold) instead of starting a gzip stream for every sender that accepts gzip.
 */
export function jsonResponse(body: unknown, init: { status: number; headers?: Record<string, string> }): Response {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    "cache-control": "no-store",
    ...init.headers,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
  };
  return new Response(text, { status: init.status, headers });
}
