// A real process serving the ingest handler over HTTP on loopback, without Next: for tests that
// must kill or starve the process that holds a transaction, and for bench:ingest's bare-handler
// arm (what Next's route module adds). Listens on INGEST_SERVER_PORT (default: any free port; not PORT, which a test run may carry for its own app), answers
// GET /api/health, and prints {"port": N} once listening.
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { handleKeyWebhook } from "@/http/webhook/receive-key-webhook";

const server = createServer(async (req, res) => {
  if (req.url === "/api/health") {
    res.end("ok");
    return;
  }
  const body =
    req.method === "GET" || req.method === "HEAD" ? undefined : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const request = new Request(`http://127.0.0.1${req.url}`, {
    method: req.method,
    headers,
    body,
    duplex: "half",
  } as RequestInit);
  const response = await handleKeyWebhook(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});

server.listen(Number(process.env.INGEST_SERVER_PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 }) + "\n");
});
