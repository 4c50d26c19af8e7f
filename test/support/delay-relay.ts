// An HTTP relay on loopback that holds every answer for a delay a test sets: put in front of the
// provider simulator's API and of our webhook endpoint, it makes the provider "far away" — its
// answers reach us late, and ours reach it late (it records a delivery attempt only then).
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export type DelayRelay = {
  url: string;
  setDelay: (ms: number) => void;
  close: () => Promise<void>;
};

export async function startDelayRelay(target: string): Promise<DelayRelay> {
  const upstream = new URL(target);
  let delayMs = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          const body: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => body.push(chunk));
          answer.on("end", () => {
            const headers: IncomingHttpHeaders = { ...answer.headers };
            delete headers["transfer-encoding"];
            setTimeout(() => {
              res.writeHead(answer.statusCode ?? 502, headers).end(Buffer.concat(body));
            }, delayMs);
          });
        },
      );
      forward.on("error", () => res.writeHead(502).end("relay: upstream unreachable"));
      forward.end(Buffer.concat(chunks));
    });
  });
  // Connections kept alive by the clients would hold close() open.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setDelay: (ms) => void (delayMs = ms),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
