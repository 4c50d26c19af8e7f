// The app's own route handler (`handleKeyWebhook`: signature, validation, redaction, the one Prisma
// interactive transaction, receipt, log line, metrics) behind bare node:http, without Next: what
// the webhook costs when nothing but node:http carries it. `npm run bench:ingest` measures it
// beside the app (`BENCH_BARE_HANDLER=1`), so the difference is what Next's route module adds per
// request. The body is read into memory (capped one byte over WEBHOOK_MAX_BODY_BYTES, so the
// handler still answers 413 itself) and handed over as a Buffer: the cheapest honest wrapping.
//   DATABASE_URL (a migrated database of its own), PORT, WEBHOOK_SECRETS, and the app's settings
import { createServer, type IncomingMessage } from "node:http";
import { env } from "../../lib/env";
import { handleKeyWebhook } from "../../lib/ingest/handle-key-webhook";

const limit = env().WEBHOOK_MAX_BODY_BYTES + 1;

function readCapped(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on("data", (chunk: Buffer) => {
      if (bytes >= limit) return;
      chunks.push(chunk);
      bytes += chunk.length;
    });
    req.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks, Math.min(bytes, limit)))));
    req.on("error", reject);
  });
}

const server = createServer(async (req, res) => {
  if (req.url === "/api/health") {
    res.end("ok");
    return;
  }
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const body = req.method === "POST" ? await readCapped(req) : undefined;
  const response = await handleKeyWebhook(
    new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body }),
  );
  const answer = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, Object.fromEntries(response.headers)).end(answer);
});
server.listen(Number(process.env.PORT ?? 4961), "127.0.0.1");
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
