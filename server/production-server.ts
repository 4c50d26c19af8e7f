// The production HTTP server, shared by `npm start` (server/serve.ts) and the standalone
// artifact (server/standalone-start.ts). Next's own server (`next start`, standalone server.js)
// answers SIGTERM by closing the listener, waiting without bound for open connections and
// exiting 143, and never closes our pools. Next's documented custom-server API (`next()`) lets
// us own the http.Server instead, so on SIGTERM/SIGINT a replica:
//   1. stops accepting connections (the load balancer's next attempt goes to another replica);
//   2. lets every request in flight finish — an ingest transaction either commits and is
//      answered, or was never committed — for at most SHUTDOWN_DRAIN_MS, answering with
//      `connection: close` meanwhile and dropping keep-alive connections as they go idle;
//   3. closes Next, then runs lib/core/shutdown-hooks.ts (the Prisma pools, the span exporter);
//   4. exits 0, or 1 when the bound expired with requests still running.
// With `workers` > 1 (WEB_CONCURRENCY) this process is only the cluster primary and each of its
// workers runs the server above (server/server-cluster.ts).
// Every request, the webhook included, goes through Next's request handler: one documented path
// in production and development (docs/decisions/0024-one-webhook-path.md).
import cluster from "node:cluster";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { runShutdownHooks } from "../lib/core/shutdown-hooks";
import { hardenServer } from "./harden-server";
import { runClusterPrimary } from "./server-cluster";
import { isWebhookPath } from "../http/webhook/webhook-path";

export type ProductionServerOptions = {
  /** The project directory: holds `.next` (the checkout, or the standalone folder). */
  dir: string;
  port: number;
  hostname: string;
  drainMs: number;
  /** Server processes sharing the port (WEB_CONCURRENCY); 1: this process serves. */
  workers: number;
};

// A worker of a cluster names itself: its lines interleave with its siblings'.
const say = (line: string) =>
  process.stdout.write(`keyhook: ${line}${cluster.isWorker ? ` [pid ${process.pid}]` : ""}\n`);

export async function startProductionServer(options: ProductionServerOptions): Promise<void> {
  if (options.workers > 1 && cluster.isPrimary) {
    runClusterPrimary({ workers: options.workers, drainMs: options.drainMs });
    return;
  }
  const app = await prepareNext(options);
  const handle = app.getRequestHandler();
  const requests: Requests = { inFlight: 0, draining: false };
  const server = createServer((req, res) => serveRequest(handle, { server, requests }, req, res));
  hardenServer(server);
  await listen(server, options);
  say(`serving on http://${options.hostname}:${options.port}`);

  let stopping = false;
  const stopOnce = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    void stop(signal, { server, app, requests, drainMs: options.drainMs });
  };
  process.on("SIGTERM", () => stopOnce("SIGTERM"));
  process.on("SIGINT", () => stopOnce("SIGINT"));
}

type NextApp = Awaited<ReturnType<typeof prepareNext>>;

/** The requests in flight, and whether the server drains them (then `onIdle` fires at zero). */
type Requests = { inFlight: number; draining: boolean; onIdle?: () => void };

// Next's documented custom server. It finds the config as `next start` does (next.config.ts in
// the checkout); the standalone entry hands it the built one (server/standalone-start.ts).
async function prepareNext(options: ProductionServerOptions) {
  // Imported here, not at the top: the entry sets NODE_ENV before Next loads.
  const { default: next } = await import("next");
  const app = next({ dev: false, dir: options.dir, hostname: options.hostname, port: options.port });
  await app.prepare();
  return app;
}

function serveRequest(
  handle: ReturnType<NextApp["getRequestHandler"]>,
  { server, requests }: { server: Server; requests: Requests },
  req: IncomingMessage,
  res: ServerResponse,
): void {
  requests.inFlight += 1;
  if (requests.draining) res.setHeader("connection", "close");
  // A webhook's answer is a few bytes, complete only at its end, and Next writes it in pieces
  // (the headers flushed alone, then the body, then the end): held back until res.end(), which
  // uncorks, they leave in one write. Pages stream, so only the webhook path is corked. Nor is
  // it compressed: Next gzips every answer to a sender that accepts gzip (Node's fetch does),
  // a zlib stream per event for a few dozen bytes, so the webhook path is answered as plain.
  if (isWebhookPath(req.url)) {
    res.cork();
    delete req.headers["accept-encoding"];
  }
  // Done when Next's handler has settled AND the response is closed: a client that hangs up
  // does not end a transaction still running for it.
  let pending = 2;
  const finished = () => {
    if (--pending > 0) return;
    requests.inFlight -= 1;
    if (requests.draining) server.closeIdleConnections();
    if (requests.inFlight === 0) requests.onIdle?.();
  };
  res.once("close", finished);
  handle(req, res)
    .catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) res.writeHead(500).end();
    })
    .finally(finished);
}

function listen(server: Server, options: ProductionServerOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => resolve());
  });
}

/** Steps 1 to 4 at the top of this file. */
async function stop(
  signal: NodeJS.Signals,
  { server, app, requests, drainMs }: { server: Server; app: NextApp; requests: Requests; drainMs: number },
): Promise<void> {
  requests.draining = true;
  say(`${signal}: draining ${requests.inFlight} request(s) in flight (at most ${drainMs} ms)`);
  server.close();
  server.closeIdleConnections();
  await drained(requests, drainMs);
  const abandoned = requests.inFlight;
  server.closeAllConnections();
  await app.close().catch((error: unknown) => console.error(error));
  const failed = await runShutdownHooks((name, error) =>
    console.error(`keyhook: closing ${name} failed: ${error instanceof Error ? error.message : String(error)}`),
  );
  if (abandoned > 0) say(`${abandoned} request(s) still running after SHUTDOWN_DRAIN_MS were cut off`);
  say(abandoned === 0 && failed.length === 0 ? "stopped cleanly" : "stopped");
  process.exit(abandoned === 0 && failed.length === 0 ? 0 : 1);
}

/** Resolves when no request is in flight, or when `drainMs` has passed. */
async function drained(requests: Requests, drainMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  if (requests.inFlight > 0) {
    await new Promise<void>((resolve) => {
      requests.onIdle = resolve;
      timer = setTimeout(resolve, drainMs);
    });
  }
  clearTimeout(timer);
}
