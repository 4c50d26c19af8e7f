// Requests Node's HTTP parser refuses never reach Next (a bad Content-Length, both Content-Length
// and Transfer-Encoding, oversized headers …): Node answers them itself with a bare status and
// nothing is written down. Here the server answers them with the same status and a JSON reason,
// and a refusal on the webhook path leaves a receipt like every other delivery (rate-limited:
// http/webhook/refused-requests.ts). A parse error inside a request already being handled (a
// broken chunked body) is the handler's: its body read fails and it records the receipt.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { env } from "../lib/core/config/env";
import { isHttpsDeployment, staticSecurityHeaders } from "../http/security-headers";
import { recordClientError } from "../http/webhook/refused-requests";
import { isWebhookPath } from "../http/webhook/webhook-path";

type ParserError = Error & { code?: string; reason?: string; rawPacket?: Buffer };

// llhttp's own reason ("Invalid character in Content-Length") says the rest well enough.
const REASONS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "the request headers are too large",
  ERR_HTTP_REQUEST_TIMEOUT: "the request was not received in time",
};

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

export function receiveClientErrors(server: Server): void {
  const headers = Object.entries(staticSecurityHeaders({ https: isHttpsDeployment(env().NEXTAUTH_URL) }))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  // The response in flight on each socket: a parse error after its request was dispatched.
  const inFlight = new WeakMap<Socket, ServerResponse>();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    inFlight.set(req.socket, res);
    res.once("close", () => inFlight.delete(req.socket));
  });

  server.on("clientError", (error: ParserError, socket: Socket) => {
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const response = inFlight.get(socket);
    if (error.code === "ECONNRESET" || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    if (response) {
      // Its handler records the receipt when the body read fails; Node's own answer is enough here.
      socket.end(`HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n${headers}\r\n`);
      return;
    }
    const reason = REASONS[error.code ?? ""] ?? error.reason ?? `malformed request (${error.code ?? "unknown error"})`;
    const body = JSON.stringify({ error: reason });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n${headers}\r\n${body}`,
    );
    const request = parseHead(error.rawPacket);
    if (!request || !isWebhookPath(request.path)) return;
    void recordClientError({
      receivedAt: new Date(),
      webhookId: request.webhookId,
      signatureVerdict: "not_checked",
      status,
      error: `refused by the HTTP parser: ${reason}`,
      latencyMicros: 0,
      bodyBytes: 0,
    });
  });
}

/** The request line's path and the webhook-id header, as far as the bytes received show them. */
function parseHead(raw: Buffer | undefined): { path: string; webhookId: string | null } | null {
  if (!raw) return null;
  const text = raw.subarray(0, 16 * 1024).toString("latin1");
  const line = /^[A-Z]+ ([^ \r\n]+) HTTP\/1\.[01]\r?\n/.exec(text);
  if (!line) return null;
  const path = line[1]!;
  const webhookId = /\r?\nwebhook-id:[ \t]*([^\r\n]*)/i.exec(text)?.[1]?.trim() || null;
  return { path, webhookId };
}
