// What the production server adds to its http.Server (one call, after createServer): every
// request passes the request guard before the server's own handler (request-guard.ts), and
// requests the HTTP parser refuses are answered and receipted (client-error-receipts.ts).
import type { Server } from "node:http";
import { receiveClientErrors } from "./client-error-receipts";
import { guardRequests } from "./request-guard";

export function hardenServer(server: Server): void {
  const handlers = server.listeners("request") as Parameters<typeof guardRequests>[0][];
  server.removeAllListeners("request");
  server.on(
    "request",
    guardRequests((req, res) => {
      for (const handler of handlers) handler.call(server, req, res);
    }),
  );
  receiveClientErrors(server);
}
