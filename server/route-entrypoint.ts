// The built entrypoint of one App Router route, to invoke the way Next's deployment adapters do
// ("Invoking Entrypoints", Next 16 Adapters API): `handler(req, res, { requestMeta })` runs the
// route module Next compiled — NextRequest, its async-storage context, the route handler, and
// Next's own response writing — without Next's router in front of it (URL resolution, the file
// system and middleware checks, compression, the render dispatch). server/production-server.ts
// sends the webhook path there: it is the hot path, has no proxy.ts (its matcher leaves /api/
// out), no rewrites, redirects or headers in next.config.ts, and answers a few bytes.
import { existsSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";

export type RouteEntrypoint = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: { requestMeta?: Record<string, unknown>; waitUntil?: (promise: Promise<void>) => void },
) => Promise<unknown>;

/**
 * The `handler` export of the built route `page` (e.g. "/api/webhooks/keys/route"), found through
 * the build's app-paths manifest, or a reason why there is none (the caller then lets Next route
 * the path as any other).
 */
export function loadRouteEntrypoint(
  dir: string,
  page: string,
): { handler: RouteEntrypoint; mod: Record<string, unknown> } | { handler: null; reason: string } {
  const serverDir = path.join(dir, ".next", "server");
  const manifestFile = path.join(serverDir, "app-paths-manifest.json");
  if (!existsSync(manifestFile)) return { handler: null, reason: "no .next/server/app-paths-manifest.json" };
  const entry = (JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, string>)[page];
  if (!entry) return { handler: null, reason: `${page} is not in the build` };
  // The same file (and so the same module instances: the webpack runtime, lib/db.ts's client)
  // Next itself loads for this route.
  const mod = createRequire(path.join(serverDir, "noop.js"))(path.join(serverDir, entry)) as Record<string, unknown>;
  if (typeof mod.handler !== "function") return { handler: null, reason: `${entry} has no handler export` };
  return { handler: mod.handler as RouteEntrypoint, mod };
}

/**
 * Headers only Next's own layers may set (x-middleware-*, x-matched-path, x-nextjs-*, …): its
 * router drops them from every request, so must whoever invokes an entrypoint directly.
 */
export function loadInternalHeaderFilter(): (headers: IncomingMessage["headers"]) => void {
  const requireHere = createRequire(import.meta.url);
  const { filterInternalHeaders } = requireHere("next/dist/server/lib/server-ipc/utils") as {
    filterInternalHeaders: (headers: IncomingMessage["headers"]) => void;
  };
  return filterInternalHeaders;
}
