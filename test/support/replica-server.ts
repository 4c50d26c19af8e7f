// One app replica as `npm start` runs it, minus Next: migrate (through prepareDatabase, with the
// direct URL and the migration lock, interruptible by SIGTERM), then serve the ingest route and
// readiness over HTTP on loopback. Prints {"port": N} once ready. Tests start several at once.
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { prepareDatabase } from "@/tooling/dev/prepare-database";
import { disconnectDb } from "@/lib/core/db/client";
import { env } from "@/lib/core/config/env";
import { checkReadiness } from "@/lib/operations/health/check-health";
import { handleKeyWebhook } from "@/http/webhook/receive-key-webhook";

const stop = new AbortController();
process.on("SIGTERM", () => {
  stop.abort();
  void disconnectDb().finally(() => process.exit(143));
});

const config = env();
try {
  const database = await prepareDatabase({
    databaseUrl: config.DATABASE_URL,
    directDatabaseUrl: config.DIRECT_DATABASE_URL,
    migrationLockTimeoutMs: config.MIGRATION_LOCK_TIMEOUT_MS,
    signal: stop.signal,
  });
  process.stderr.write(`migrated: ${JSON.stringify(database.applied)}\n`);
} catch (error) {
  process.stderr.write(`keyhook: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

const server = createServer(async (req, res) => {
  if (req.url === "/api/health/ready") {
    const readiness = await checkReadiness();
    res.writeHead(readiness.ok ? 200 : 503, { "content-type": "application/json" });
    res.end(JSON.stringify(readiness));
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

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 }) + "\n");
});
