// The webhook route's App Router route module, run directly: what the route's built entrypoint
// (server/route-entrypoint.ts) does per request, less the parts a dynamic POST route on a fixed
// path never uses (docs/decisions/0013-ingest-cpu-route-module.md). The entrypoint's `handler`
// prepares every request as if it could be any route (instrumentation looked up twice, the URL,
// i18n, rewrites and dynamic params resolved, draft-mode cookies read, an incremental cache built
// twice), runs it through the response cache (ISR), and pipes the answer through a WritableStream.
// Here, per request: the same NextRequest (Next's adapter, its abort signal), one incremental cache,
// the same context the entrypoint gives the route module, `routeModule.handle` — Next's app-route
// module with its async-storage stores, our route handler, Next's response finalisation — and the
// answer written to the Node response in one `end()`. What is per process (build id, manifests,
// instrumentation, the process error handlers) is done once, at start.
// Only used when it applies (checked at start, else the reason is returned and the caller keeps the
// entrypoint): an APP_ROUTE module, dynamic (not prerendered, no ISR), no basePath/i18n/rewrites for
// it, and tracing off — with tracing on, the entrypoint runs, so Next's request span is there.
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";

type RouteModule = {
  definition: { kind: string; page: string };
  handle: (request: unknown, context: unknown) => Promise<Response>;
  getIncrementalCache: (
    req: IncomingMessage,
    nextConfig: unknown,
    previewProps: unknown,
    prerenderManifest: unknown,
    minimalMode: boolean,
  ) => Promise<{ resetRequestCache?: () => void } | undefined>;
  ensureInstrumentation: (req: object) => Promise<unknown>;
  onRequestError: (req: IncomingMessage, error: unknown, context: unknown, silenceLog: boolean) => Promise<void>;
};

type PrerenderManifest = {
  routes: Record<string, unknown>;
  dynamicRoutes: Record<string, unknown>;
  preview: unknown;
};

type NextConfigSubset = {
  basePath?: string;
  i18n?: unknown;
  deploymentId?: string;
  cacheComponents?: boolean;
  cacheLife?: unknown;
  staticPageGenerationTimeout?: number;
  experimental: {
    authInterrupts?: boolean;
    useCacheTimeout?: number;
    durableUseCacheEntries?: boolean;
    runtimeServerDeploymentId?: boolean;
    instantInsights?: { validationLevel?: unknown };
    removeUncaughtErrorAndRejectionListeners?: boolean;
  };
};

export type DirectRoute = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

// Headers Next's sendResponse never copies from a route's Response (its body may have been decoded).
const FORBIDDEN_HEADERS = new Set([
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "x-middleware-set-cookie",
]);
const MULTI_VALUE_HEADERS = new Set(["set-cookie", "www-authenticate", "proxy-authenticate", "vary"]);

/**
 * A function answering one request with the route module of the built entrypoint `mod` (the
 * object route-entrypoint.ts loaded), or why it cannot be used.
 */
export async function loadDirectRoute(options: {
  dir: string;
  /** The route's page as Next names it, e.g. "/api/webhooks/keys/route". */
  page: string;
  mod: { routeModule?: unknown };
  nextConfig: Record<string, unknown>;
  requestMeta: Record<string, unknown>;
  tracing: boolean;
}): Promise<{ route: DirectRoute } | { route: null; reason: string }> {
  if (options.tracing) return { route: null, reason: "tracing is on (Next's request span comes from the entrypoint)" };
  const routeModule = options.mod.routeModule as RouteModule | undefined;
  if (!routeModule || typeof routeModule.handle !== "function" || routeModule.definition?.kind !== "APP_ROUTE")
    return { route: null, reason: "the entrypoint has no app-route module" };
  const nextConfig = options.nextConfig as unknown as NextConfigSubset;
  if (nextConfig.basePath || nextConfig.i18n) return { route: null, reason: "basePath or i18n is configured" };
  if (!nextConfig.experimental) return { route: null, reason: "the build's config has no experimental section" };
  if (nextConfig.experimental.runtimeServerDeploymentId)
    return { route: null, reason: "the deployment id is read at run time" };
  const serverDir = path.join(options.dir, ".next", "server");
  const prerenderManifest = JSON.parse(
    readFileSync(path.join(options.dir, ".next", "prerender-manifest.json"), "utf8"),
  ) as PrerenderManifest;
  const pathname = options.page.replace(/\/route$/, "");
  if (prerenderManifest.routes[pathname] || prerenderManifest.dynamicRoutes[pathname])
    return { route: null, reason: `${pathname} is prerendered (ISR goes through the response cache)` };
  const buildId = readFileSync(path.join(options.dir, ".next", "BUILD_ID"), "utf8").trim();
  const deploymentId = nextConfig.deploymentId || "";
  const previewProps = prerenderManifest.preview;

  // Next's own modules, from the same installation the route module's runtime comes from (a
  // Next without them, after an upgrade, keeps the entrypoint).
  let next: NextInternals;
  try {
    next = loadNextInternals(createRequire(path.join(serverDir, "noop.js")));
  } catch (error) {
    return {
      route: null,
      reason: `Next's internals moved (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const { NodeNextRequest, NextRequestAdapter, signalFromNodeResponse, setRequestMeta, installProcessErrorHandlers } =
    next;

  // Per process, what the entrypoint's prepare does on every request: instrumentation.ts
  // registered (awaited before the first request, as there), Next's process error handlers.
  const startup = {};
  setRequestMeta(startup, { ...options.requestMeta });
  await routeModule.ensureInstrumentation(startup);
  installProcessErrorHandlers(Boolean(nextConfig.experimental.removeUncaughtErrorAndRejectionListeners));

  const route: DirectRoute = async (req, res) => {
    setRequestMeta(req, { ...options.requestMeta });
    const incrementalCache = await routeModule.getIncrementalCache(
      req,
      nextConfig,
      previewProps,
      prerenderManifest,
      false,
    );
    incrementalCache?.resetRequestCache?.();
    (globalThis as { __incrementalCache?: unknown }).__incrementalCache = incrementalCache;
    // The context app-route.js (Next's entrypoint template) builds, for a request that is not ISR.
    const renderOpts: Record<string, unknown> = {
      experimental: {
        authInterrupts: Boolean(nextConfig.experimental.authInterrupts),
        useCacheTimeout: nextConfig.experimental.useCacheTimeout,
        durableUseCacheEntries: Boolean(nextConfig.experimental.durableUseCacheEntries),
      },
      cacheComponents: Boolean(nextConfig.cacheComponents),
      validationLevel: nextConfig.experimental.instantInsights?.validationLevel,
      isDraftMode: false,
      incrementalCache,
      hmrRefreshHash: undefined,
      cacheLifeProfiles: nextConfig.cacheLife,
      staticPageGenerationTimeout: nextConfig.staticPageGenerationTimeout,
      waitUntil: undefined,
      onClose: (callback: () => void) => {
        res.on("close", callback);
      },
      onAfterTaskError: undefined,
    };
    const context = { params: undefined, previewProps, renderOpts, sharedContext: { buildId, deploymentId } };
    const request = NextRequestAdapter.fromNodeNextRequest(new NodeNextRequest(req), signalFromNodeResponse(res));
    let response: Response;
    try {
      response = await routeModule.handle(request, context);
    } catch (error) {
      // As the entrypoint: reported (console and instrumentation's onRequestError), then a bare 500.
      await routeModule.onRequestError(
        req,
        error,
        { routerKind: "App Router", routePath: pathname, routeType: "route", revalidateReason: undefined },
        false,
      );
      if (!res.headersSent) res.writeHead(500);
      res.end();
      return;
    }
    // Next's sendResponse, for a body that is complete: the same headers, then one end() — unless
    // the client is gone (as Next's pipe, which then writes nothing).
    if (res.destroyed) return;
    res.statusCode = response.status;
    res.statusMessage = response.statusText;
    response.headers.forEach((value, name) => {
      if (FORBIDDEN_HEADERS.has(name) || name === "set-cookie") return;
      if (MULTI_VALUE_HEADERS.has(name) || res.getHeader(name) === undefined) res.appendHeader(name, value);
    });
    for (const cookie of response.headers.getSetCookie()) res.appendHeader("set-cookie", cookie);
    const body = response.body && req.method !== "HEAD" ? Buffer.from(await response.arrayBuffer()) : undefined;
    const pendingWaitUntil = renderOpts.pendingWaitUntil as Promise<unknown> | undefined;
    if (pendingWaitUntil) await pendingWaitUntil;
    res.end(body);
  };
  return { route };
}

type NextInternals = {
  NodeNextRequest: new (req: IncomingMessage) => unknown;
  NextRequestAdapter: { fromNodeNextRequest: (req: unknown, signal: AbortSignal) => unknown };
  signalFromNodeResponse: (res: ServerResponse) => AbortSignal;
  setRequestMeta: (req: object, meta: Record<string, unknown>) => void;
  installProcessErrorHandlers: (remove: boolean) => void;
};

function loadNextInternals(requireNext: NodeJS.Require): NextInternals {
  const internals = {
    ...(requireNext("next/dist/server/base-http/node") as Pick<NextInternals, "NodeNextRequest">),
    ...(requireNext("next/dist/server/web/spec-extension/adapters/next-request") as Pick<
      NextInternals,
      "NextRequestAdapter" | "signalFromNodeResponse"
    >),
    ...(requireNext("next/dist/server/request-meta") as Pick<NextInternals, "setRequestMeta">),
    ...(requireNext("next/dist/server/node-environment-extensions/process-error-handlers") as Pick<
      NextInternals,
      "installProcessErrorHandlers"
    >),
  };
  for (const name of [
    "NodeNextRequest",
    "signalFromNodeResponse",
    "setRequestMeta",
    "installProcessErrorHandlers",
  ] as const) {
    if (typeof internals[name] !== "function") throw new Error(`${name} not found`);
  }
  if (typeof internals.NextRequestAdapter?.fromNodeNextRequest !== "function")
    throw new Error("NextRequestAdapter.fromNodeNextRequest not found");
  return internals;
}
