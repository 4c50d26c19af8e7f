// The simulator's HTTP surface. Everything needs `Authorization: Bearer <PROVIDER_API_KEY>`.
//
// The provider API (/v1/…): the routes of lib/operations/provider/api-schema.ts. A POST with an
// Idempotency-Key is answered once and the stored answer is replayed for a repeat
// (header `idempotent-replayed: true`); the same key with a different body is a 422.
// Injected API faults (429 with Retry-After, 503) are decided before anything is done.
//
// Control endpoints for tests and demos (/_sim/…):
//   GET    /_sim/health                       {ok, hooks, events}
//   GET    /_sim/faults  PUT /_sim/faults     fault knobs (simulator/faults.ts); PUT merges a partial object
//   POST   /_sim/emit    {count, tenants?: string[] | tenantCount?: n, tenantPrefix?}
//                                             emits `count` realistic key events → {emitted, event_ids}
//   POST   /_sim/stream  {tenants, interval_ms?, quiet_ms?}   start the background churn; DELETE stops it
//   GET    /_sim/truth[?tenant=ID]            the provider's own keys and sequences per tenant
//   GET    /_sim/stats                        events, messages by status, attempts, queue
//   GET    /_sim/api-calls[?idempotency_key=K]  the API calls received (newest last), to count effects
//   POST   /_sim/keys/bulk {tenant_id, count, status?, id_prefix?}
//                                             adds keys WITHOUT emitting events (drift tests, benchmarks)
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type {
  WireDeliveryAttempt,
  WireDeliveryPage,
  WireError,
  WireHook,
  WireKeyPage,
  WireKeyResult,
  WireSecretRotation,
  WireTestEvent,
} from "../lib/operations/provider/api-schema";
import { KEY_CALL_REFUSALS, KEY_PAGE_MAX } from "../lib/operations/provider/api-schema";
import type { Dispatcher } from "./dispatcher";
import { faultsSchema, type Faults } from "./faults";
import type { SimAttempt, SimHook, SimKey, SimMessage } from "./model";
import { SimApiError, type KeyChange, type SimProvider } from "./provider";
import type { SimStore } from "./store";
import { emitMany, startStream, tenantOfKeyCall, type CustomerActivity } from "./stream";

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

export type ApiCallRecord = {
  at: number;
  method: string;
  path: string;
  idempotencyKey: string | null;
  status: number;
  replayed: boolean;
};

export type HttpApiContext = {
  apiKey: string;
  store: SimStore;
  provider: SimProvider;
  dispatcher: Dispatcher;
  faults: { get(): Faults; set(next: Faults): void };
  random: () => number;
  streamIntervalMs: number;
  quietMs: number;
  /** Key calls of the API are a person's doing: the churn leaves their tenant alone for a while. */
  activity: CustomerActivity;
};

const MAX_BODY_BYTES = 64 * 1024;
const MAX_API_LOG = 20_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const registerBody = z.object({ url: z.url({ protocol: /^https?$/ }) });
const rotateSecretBody = z.object({
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]{16,}$/)
    .optional(),
  overlap_seconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .optional(),
});
const testEventBody = z.object({ tenant_id: z.string().min(1).max(200) });
const issueBody = z.object({ scopes: z.array(z.string().min(1).max(200)).max(100) });
const redeliverFailedBody = z.object({
  since: z.iso.datetime({ offset: true }),
  until: z.iso.datetime({ offset: true }),
  dry_run: z.boolean().default(false),
});
const deliveriesQuery = z.object({
  cursor: z.string().regex(/^\d+$/, "is not a cursor this API gave out").optional(),
  limit: z.coerce.number().int().min(1).max(250).default(50),
  status: z.enum(["failed", "succeeded"]).optional(),
  event_id: z.string().min(1).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
});
const keysQuery = z.object({
  // Opaque to the caller: the base64url of the last key id of the previous page.
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,400}$/, "is not a cursor this API gave out")
    .optional(),
  limit: z.coerce.number().int().min(1).max(KEY_PAGE_MAX).default(100),
});
const bulkKeysBody = z.object({
  tenant_id: z.string().min(1).max(200),
  count: z.number().int().min(1).max(1_000_000),
  status: z.enum(["active", "rotated", "revoked"]).default("revoked"),
  id_prefix: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,40}$/)
    .default("key_bulk_"),
});
const emitBody = z.object({
  count: z.number().int().min(1).max(100_000),
  tenants: z.array(z.string().min(1).max(200)).min(1).optional(),
  tenantCount: z.number().int().min(1).max(10_000).optional(),
  tenantPrefix: z.string().min(1).max(100).default("district-sim-"),
});
const streamBody = z.object({
  tenants: z.array(z.string().min(1)).min(1),
  interval_ms: z.number().int().min(100).optional(),
  quiet_ms: z.number().int().min(0).optional(),
});

/** What the handler keeps between requests: the API calls received and the running churn. */
type HandlerState = {
  apiCalls: ApiCallRecord[];
  stream: { stop(): void } | null;
};

export function createRequestHandler(context: HttpApiContext) {
  const state: HandlerState = { apiCalls: [], stream: null };
  const routes = [...providerApiRoutes(context), ...controlRoutes(context, state)];
  const expectedAuth = Buffer.from(`Bearer ${context.apiKey}`);

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let result: Answer & { replayed?: boolean };
    try {
      result = await answer(context, routes, expectedAuth, req);
    } catch (failure) {
      process.stderr.write(`provider-sim: ${failure instanceof Error ? failure.stack : String(failure)}\n`);
      result = error(500, "internal", "internal error");
    }
    const path = (req.url ?? "/").split("?")[0]!;
    noteKeyCallActivity(context, req, path, result);
    if (path.startsWith("/v1/")) recordApiCall(state.apiCalls, req, path, result);
    res.writeHead(result.status, {
      "content-type": "application/json",
      "cache-control": "no-store",
      ...result.headers,
    });
    res.end(JSON.stringify(result.body));
  };
}

/** A route of the table: `{name}` in its path is one segment, handed to `handle` decoded. */
type Route = {
  method: string;
  pattern: RegExp;
  names: string[];
  // Synchronous on purpose: between the idempotency lookup and storing the answer (answerOnce)
  // nothing else may run, so two concurrent requests with one key can never both act.
  handle(request: RouteRequest): Answer;
};
type RouteRequest = { params: Record<string, string>; url: URL; body: unknown };

function route(method: string, path: string, handle: Route["handle"]): Route {
  const names: string[] = [];
  const source = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { method, pattern: new RegExp(`^${source}$`), names, handle };
}

/** The provider API, in the order of api-schema.ts; the first route whose method and path match answers. */
function providerApiRoutes(context: HttpApiContext): Route[] {
  return [...webhookRoutes(context), ...keyRoutes(context)];
}

function webhookRoutes(context: HttpApiContext): Route[] {
  const { store, provider, dispatcher } = context;
  return [
    route("POST", "/v1/account/webhooks/register", ({ body }) => {
      const { url: hookUrl } = parse(registerBody, body);
      return { status: 201, body: wireHook(provider.registerHook(hookUrl)) };
    }),
    route("GET", "/v1/account/webhooks/{hookId}", ({ params }) => ({
      status: 200,
      body: wireHook(provider.hook(params.hookId!)),
    })),
    route("POST", "/v1/account/webhooks/{hookId}/rotate-secret", ({ params, body }) => {
      const input = parse(rotateSecretBody, body);
      const hook = provider.rotateHookSecret(params.hookId!, {
        secret: input.secret,
        overlapSeconds: input.overlap_seconds,
      });
      return {
        status: 200,
        body: {
          hook_id: hook.id,
          secret: hook.secret,
          previous_secret_valid_until: iso(hook.previousSecretValidUntil),
        } satisfies WireSecretRotation,
      };
    }),
    route("POST", "/v1/account/webhooks/{hookId}/test-event", ({ params, body }) => {
      const input = parse(testEventBody, body);
      const event = provider.testEvent(params.hookId!, input.tenant_id);
      return {
        status: 202,
        body: { event_id: event.id, tenant_id: event.tenantId, sequence: event.sequence } satisfies WireTestEvent,
      };
    }),
    route("GET", "/v1/account/webhooks/deliveries/{hookId}", ({ params, url }) => {
      const hook = provider.hook(params.hookId!);
      return {
        status: 200,
        body: listDeliveries(store, hook.id, parse(deliveriesQuery, Object.fromEntries(url.searchParams))),
      };
    }),
    route("POST", "/v1/account/webhooks/deliveries/{hookId}/redeliver-failed", ({ params, body }) => {
      const hook = provider.hook(params.hookId!);
      const input = parse(redeliverFailedBody, body);
      const window = { since: Date.parse(input.since), until: Date.parse(input.until) };
      return { status: 200, body: { count: redeliverFailed(context, hook.id, window, input.dry_run) } };
    }),
    route("POST", "/v1/account/webhooks/deliveries/{hookId}/{deliveryId}/redeliver", ({ params }) => {
      const hook = provider.hook(params.hookId!);
      dispatcher.redeliver(deliveredMessage(store, hook.id, params.deliveryId!));
      return { status: 202, body: { accepted: true } };
    }),
  ];
}

function keyRoutes({ store, provider }: HttpApiContext): Route[] {
  return [
    route("GET", "/v1/tenants/{tenantId}/keys", ({ params, url }) => ({
      status: 200,
      body: listKeys(store, params.tenantId!, parse(keysQuery, Object.fromEntries(url.searchParams))),
    })),
    route("POST", "/v1/tenants/{tenantId}/keys", ({ params, body }) => ({
      status: 201,
      body: keyResult(provider.issueKey(params.tenantId!, parse(issueBody, body).scopes)),
    })),
    route("POST", "/v1/tenants/{tenantId}/keys/{keyId}/rotate", ({ params }) => ({
      status: 201,
      body: keyResult(provider.rotateKey(params.tenantId!, params.keyId!)),
    })),
    route("POST", "/v1/tenants/{tenantId}/keys/{keyId}/revoke", ({ params }) => ({
      status: 200,
      body: keyResult(provider.revokeKey(params.tenantId!, params.keyId!)),
    })),
  ];
}

/** The control endpoints listed at the top of this file. */
function controlRoutes(context: HttpApiContext, state: HandlerState): Route[] {
  const { store, provider } = context;
  return [
    route("GET", "/_sim/health", () => ({
      status: 200,
      body: { ok: true, hooks: store.hooks.size, events: store.events.size },
    })),
    route("GET", "/_sim/faults", () => ({ status: 200, body: context.faults.get() })),
    route("PUT", "/_sim/faults", ({ body }) => {
      const next = parse(faultsSchema, { ...context.faults.get(), ...(body as object) });
      context.faults.set(next);
      return { status: 200, body: next };
    }),
    route("POST", "/_sim/emit", ({ body }) => {
      const input = parse(emitBody, body);
      const events = emitMany(provider, { count: input.count, tenants: emitTenants(input), random: context.random });
      return { status: 200, body: { emitted: events.length, event_ids: events.map((e) => e.id) } };
    }),
    route("POST", "/_sim/stream", ({ body }) => {
      const input = parse(streamBody, body);
      state.stream?.stop();
      state.stream = startStream({
        provider,
        tenants: input.tenants,
        intervalMs: input.interval_ms ?? context.streamIntervalMs,
        quietMs: input.quiet_ms ?? context.quietMs,
        activity: context.activity,
        hasHook: () => store.hooks.size > 0,
        random: context.random,
      });
      return { status: 200, body: { streaming: input.tenants } };
    }),
    route("DELETE", "/_sim/stream", () => {
      state.stream?.stop();
      state.stream = null;
      return { status: 200, body: { streaming: [] } };
    }),
    route("GET", "/_sim/truth", ({ url }) => ({
      status: 200,
      body: { tenants: provider.truth(url.searchParams.get("tenant") ?? undefined) },
    })),
    route("GET", "/_sim/stats", () => ({ status: 200, body: stats(context) })),
    route("POST", "/_sim/keys/bulk", ({ body }) => ({
      status: 200,
      body: { added: bulkKeys(context, parse(bulkKeysBody, body)) },
    })),
    route("GET", "/_sim/api-calls", ({ url }) => {
      const key = url.searchParams.get("idempotency_key");
      const calls = key ? state.apiCalls.filter((c) => c.idempotencyKey === key) : state.apiCalls;
      return { status: 200, body: { calls } };
    }),
  ];
}

function dispatch(routes: Route[], method: string, url: URL, body: unknown): Answer {
  for (const candidate of routes) {
    if (candidate.method !== method) continue;
    const match = candidate.pattern.exec(url.pathname);
    if (!match) continue;
    const values = match.slice(1).map(decodedSegment);
    if (values.includes(null))
      return error(400, "bad_path", `a path segment is not valid percent-encoding: ${url.pathname}`);
    const params = Object.fromEntries(candidate.names.map((name, i) => [name, values[i]!]));
    return candidate.handle({ params, url, body });
  }
  return error(404, "not_found", `no route ${method} ${url.pathname}`);
}

function decodedSegment(segment: string | undefined): string | null {
  try {
    return decodeURIComponent(segment!);
  } catch {
    return null;
  }
}

/** A route's answer, a refusal it threw (SimApiError) turned into its error answer. */
function run(routes: Route[], method: string, url: URL, body: unknown): Answer {
  try {
    return dispatch(routes, method, url, body);
  } catch (failure) {
    if (failure instanceof SimApiError) return error(failure.status, failure.code, failure.message);
    throw failure;
  }
}

async function answer(
  context: HttpApiContext,
  routes: Route[],
  expectedAuth: Buffer,
  req: IncomingMessage,
): Promise<Answer & { replayed?: boolean }> {
  if (!authorized(req, expectedAuth)) return error(401, "unauthorized", "missing or wrong bearer key");
  const url = new URL(req.url ?? "/", "http://simulator");
  const method = req.method ?? "GET";
  const raw = await readBody(req);
  if (raw === null) return error(413, "too_large", `body over ${MAX_BODY_BYTES} bytes`);
  const body = parseJsonBody(raw);
  if (body === INVALID_JSON) return error(400, "invalid_json", "body is not JSON");

  const isApi = url.pathname.startsWith("/v1/");
  if (isApi) {
    const fault = injectedApiFault(context);
    if (fault) return fault;
  }
  const idempotencyKey = req.headers["idempotency-key"];
  if (!isApi || method !== "POST" || typeof idempotencyKey !== "string" || idempotencyKey === "")
    return run(routes, method, url, body);
  return answerOnce(context.store, `${url.pathname} ${idempotencyKey}`, raw, () => run(routes, method, url, body));
}

function authorized(req: IncomingMessage, expectedAuth: Buffer): boolean {
  const auth = Buffer.from(req.headers.authorization ?? "");
  return auth.length === expectedAuth.length && timingSafeEqual(auth, expectedAuth);
}

const INVALID_JSON = Symbol("invalid JSON");

/** An empty body is `{}`. */
function parseJsonBody(raw: string): unknown {
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return INVALID_JSON;
  }
}

/**
 * A POST under an Idempotency-Key: the stored answer for a repeat of the same body, a 422 for the
 * key with another body, else the route's answer, stored.
 */
function answerOnce(
  store: SimStore,
  scope: string,
  raw: string,
  runRoute: () => Answer,
): Answer & { replayed?: boolean } {
  const fingerprint = createHash("sha256").update(raw).digest("hex");
  const stored = store.idempotency.get(scope);
  if (stored) {
    if (stored.fingerprint !== fingerprint)
      return error(422, "idempotency_key_reused", "this Idempotency-Key was used with a different request body");
    return {
      status: stored.status,
      body: JSON.parse(stored.body),
      headers: { "idempotent-replayed": "true" },
      replayed: true,
    };
  }
  const result = runRoute();
  // Server failures are not remembered: the retry must get a real second chance.
  if (result.status < 500)
    store.put({
      t: "idempotency",
      v: { scope, fingerprint, status: result.status, body: JSON.stringify(result.body), at: Date.now() },
    });
  return result;
}

/** Injected API faults, decided before anything is done: a 503 first, then a 429 with Retry-After. */
function injectedApiFault(context: HttpApiContext): Answer | null {
  const faults = context.faults.get();
  if (faults.apiServerErrorNext > 0) {
    context.faults.set({ ...faults, apiServerErrorNext: faults.apiServerErrorNext - 1 });
    return error(503, "unavailable", "temporarily unavailable (injected)", { "retry-after": "0" });
  }
  const limited =
    faults.apiRateLimitNext > 0 || (faults.apiRateLimitRate > 0 && context.random() < faults.apiRateLimitRate);
  if (!limited) return null;
  if (faults.apiRateLimitNext > 0) context.faults.set({ ...faults, apiRateLimitNext: faults.apiRateLimitNext - 1 });
  return error(429, "rate_limited", "too many requests (injected)", {
    "retry-after": String(faults.apiRetryAfterSeconds),
  });
}

/** A key call that succeeded is a person's doing: the churn leaves their tenant alone for a while. */
function noteKeyCallActivity(context: HttpApiContext, req: IncomingMessage, path: string, result: Answer): void {
  const keyTenant = req.method === "POST" && result.status < 300 ? tenantOfKeyCall(path) : null;
  if (keyTenant) context.activity.note(keyTenant, Date.now());
}

/** Kept for /_sim/api-calls: the newest MAX_API_LOG calls. */
function recordApiCall(
  apiCalls: ApiCallRecord[],
  req: IncomingMessage,
  path: string,
  result: Answer & { replayed?: boolean },
): void {
  const key = req.headers["idempotency-key"];
  apiCalls.push({
    at: Date.now(),
    method: req.method ?? "GET",
    path,
    idempotencyKey: typeof key === "string" ? key : null,
    status: result.status,
    replayed: result.replayed ?? false,
  });
  if (apiCalls.length > MAX_API_LOG) apiCalls.splice(0, apiCalls.length - MAX_API_LOG);
}

function error(status: number, code: string, message: string, headers?: Record<string, string>): Answer {
  return { status, body: { error: { code, message } } satisfies WireError, headers };
}

function parse<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new SimApiError(400, "invalid_request", `${issue.path.join(".") || "body"}: ${issue.message}`);
}

function keyResult(change: KeyChange): WireKeyResult {
  return {
    key: wireKey(change.key),
    secret: change.secret,
    previous_key_id: change.previousKeyId,
    event_id: change.event?.id ?? null,
  };
}

/** The tenants named, or `tenantCount` of them numbered after the prefix (ten by default). */
function emitTenants(input: z.output<typeof emitBody>): string[] {
  return (
    input.tenants ??
    Array.from({ length: input.tenantCount ?? 10 }, (_, i) => `${input.tenantPrefix}${String(i + 1).padStart(3, "0")}`)
  );
}

/** The message of one of the hook's delivery attempts, or a 404. */
function deliveredMessage(store: SimStore, hookId: string, deliveryId: string): SimMessage {
  const found = store.attemptsById.get(deliveryId);
  const attempt = found?.hookId === hookId ? found : undefined;
  const message = attempt && store.messages.get(attempt.messageId);
  if (!message) throw new SimApiError(404, "delivery_not_found", `hook ${hookId} has no delivery ${deliveryId}`);
  return message;
}

function listDeliveries(store: SimStore, hookId: string, query: z.output<typeof deliveriesQuery>): WireDeliveryPage {
  const since = query.since ? Date.parse(query.since) : -Infinity;
  const until = query.until ? Date.parse(query.until) : Infinity;
  const before = query.cursor ? Number(query.cursor) : Infinity;
  const items: SimAttempt[] = [];
  // Newest first; the cursor is the position of the last attempt returned.
  for (let i = store.attempts.length - 1; i >= 0 && items.length <= query.limit; i--) {
    const a = store.attempts[i]!;
    if (a.seq >= before || a.hookId !== hookId) continue;
    if (query.status && a.succeeded !== (query.status === "succeeded")) continue;
    if (query.event_id && a.eventId !== query.event_id) continue;
    if (a.at < since || a.at >= until) continue;
    items.push(a);
  }
  const page = items.slice(0, query.limit);
  return {
    items: page.map(wireAttempt),
    next_cursor: items.length > query.limit ? String(page[page.length - 1]!.seq) : null,
  };
}

function listKeys(store: SimStore, tenantId: string, query: z.output<typeof keysQuery>): WireKeyPage {
  const ids = store.tenantKeyIds(tenantId);
  const start = query.cursor ? firstIdAfter(ids, Buffer.from(query.cursor, "base64url").toString("utf8")) : 0;
  const page = ids.slice(start, start + query.limit).map((id) => store.keys.get(id)!);
  const more = start + query.limit < ids.length;
  return {
    items: page.map(wireKey),
    next_cursor: more ? Buffer.from(page[page.length - 1]!.id, "utf8").toString("base64url") : null,
  };
}

/** Binary search in the sorted ids: the position of the first one after `after` (keys are never deleted, only added). */
function firstIdAfter(ids: readonly string[], after: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle]! <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

function bulkKeys(context: HttpApiContext, input: z.output<typeof bulkKeysBody>): number {
  const { store, provider } = context;
  if (input.status === "active" && (input.count > 1 || provider.activeKey(input.tenant_id)))
    throw new SimApiError(409, KEY_CALL_REFUSALS.activeKeyExists, "a tenant has at most one active key");
  const at = Date.now();
  const width = String(input.count).length;
  for (let i = 0; i < input.count; i++) {
    const id = `${input.id_prefix}${String(i).padStart(width, "0")}_${at.toString(36)}`;
    store.put({
      t: "key",
      v: {
        id,
        tenantId: input.tenant_id,
        status: input.status,
        prefix: "ik_bulk",
        scopes: [],
        createdAt: at,
        updatedAt: at,
      },
    });
  }
  if (!store.tenants.has(input.tenant_id)) store.put({ t: "tenant", v: { id: input.tenant_id, sequence: 0 } });
  return input.count;
}

function redeliverFailed(
  context: HttpApiContext,
  hookId: string,
  window: { since: number; until: number },
  dryRun: boolean,
): number {
  const { store, dispatcher } = context;
  // An event whose delivery is still failed (its latest attempt failed) and failed in the window.
  const lastAttempt = new Map<string, SimAttempt>();
  for (const a of store.attempts) if (a.hookId === hookId) lastAttempt.set(a.messageId, a);
  let count = 0;
  for (const [messageId, attempt] of lastAttempt) {
    const message = store.messages.get(messageId)!;
    if (message.status === "succeeded" || attempt.succeeded || attempt.at < window.since || attempt.at >= window.until)
      continue;
    count++;
    if (!dryRun) dispatcher.redeliver(message);
  }
  return count;
}

function stats({ store, dispatcher }: HttpApiContext) {
  const messages = { pending: 0, succeeded: 0, failed: 0 };
  for (const m of store.messages.values()) messages[m.status]++;
  const attempts = {
    total: store.attempts.length,
    succeeded: 0,
    failed: 0,
    manual: 0,
    duplicate: 0,
    lost_response: 0,
    reordered: 0,
    bad_signature: 0,
  };
  for (const a of store.attempts) {
    if (a.succeeded) attempts.succeeded++;
    else attempts.failed++;
    if (a.trigger === "manual") attempts.manual++;
    if (a.injected) attempts[a.injected]++;
  }
  return {
    hooks: store.hooks.size,
    tenants: store.tenants.size,
    keys: store.keys.size,
    events: store.events.size,
    messages,
    attempts,
    ...dispatcher.stats(),
  };
}

function wireHook(hook: SimHook): WireHook {
  return { hook_id: hook.id, url: hook.url, created_at: new Date(hook.createdAt).toISOString() };
}

function wireKey(key: SimKey) {
  return {
    id: key.id,
    tenant_id: key.tenantId,
    status: key.status,
    prefix: key.prefix,
    scopes: key.scopes,
    created_at: new Date(key.createdAt).toISOString(),
  };
}

function wireAttempt(a: SimAttempt): WireDeliveryAttempt {
  return {
    id: a.id,
    event_id: a.eventId,
    tenant_id: a.tenantId,
    attempt: a.attempt,
    trigger: a.trigger,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    response_excerpt: a.responseExcerpt,
    error: a.error,
    at: new Date(a.at).toISOString(),
    next_retry_at: iso(a.nextRetryAt),
    succeeded: a.succeeded,
  };
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
