// What the production server does to every request before Next sees it (docs/security.md):
//  1. sets the headers every response carries (http/security-headers.ts);
//  2. with no trusted proxy (TRUSTED_PROXY_HOPS=0), drops every X-Forwarded-* / Forwarded header
//     the client sent: Next then fills them from the connection itself, so the server-action
//     origin check, redirects and the sign-in throttle see the real host, scheme and address;
//  3. refuses a state-changing request to a page (a server action) from another origin: the
//     dashboard's origin is NEXTAUTH_URL's, fixed by configuration, not read from any header a
//     client sends (decision 0018).
import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "../lib/core/config/env";
import { isHttpsDeployment, staticSecurityHeaders } from "../http/security-headers";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const FORWARDING_HEADERS = /^(x-forwarded-|forwarded$|x-real-ip$)/;

/** Under /api/ as Next will route it: dot segments resolved, so `/api/../districts` is a page. */
function isApiPath(url: string | undefined): boolean {
  try {
    return new URL(url ?? "/", "http://keyhook.invalid").pathname.startsWith("/api/");
  } catch {
    return false;
  }
}

export function guardRequests(handler: Handler): Handler {
  const config = env();
  const trustedHops = config.TRUSTED_PROXY_HOPS;
  const publicOrigin = config.NEXTAUTH_URL ? new URL(config.NEXTAUTH_URL).origin : null;
  const headers = Object.entries(staticSecurityHeaders({ https: isHttpsDeployment(config.NEXTAUTH_URL) }));

  return (req, res) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    if (trustedHops === 0) {
      for (const name of Object.keys(req.headers)) if (FORWARDING_HEADERS.test(name)) delete req.headers[name];
    }
    if (!SAFE_METHODS.has(req.method ?? "GET") && !isApiPath(req.url) && crossOrigin(req)) {
      const body = `cross-origin request refused: this dashboard accepts changes from ${publicOrigin ?? "its own host"} only\n`;
      res.writeHead(403, {
        "content-type": "text/plain; charset=utf-8",
        "content-length": Buffer.byteLength(body),
        connection: "close",
      });
      res.end(body);
      return;
    }
    handler(req, res);
  };

  /** Not from the dashboard's own origin (NEXTAUTH_URL; without it, the host the request reached). */
  function crossOrigin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    // No Origin: not a browser's cross-site request (every browser sends one on a cross-site POST),
    // unless Fetch Metadata says so.
    if (!origin) return req.headers["sec-fetch-site"] === "cross-site";
    if (publicOrigin) return origin !== publicOrigin;
    const forwarded = trustedHops > 0 ? req.headers["x-forwarded-host"] : undefined;
    const host = (Array.isArray(forwarded) ? forwarded[0] : forwarded?.split(",")[0]?.trim()) ?? req.headers.host;
    try {
      return new URL(origin).host !== host;
    } catch {
      return true; // "null" and anything unparsable
    }
  }
}
