// The provider's REST API behind a bearer key (routes: api-schema.ts).
//
// Retries: a 429 is always retried (the provider did nothing); a 5xx, a timeout or a network
// failure is retried only for a request that is safe to repeat — a GET, or a POST carrying an
// Idempotency-Key (the provider answers a repeat with the first result). The wait before retry n
// is capped exponential backoff with jitter; when the provider sends Retry-After we wait exactly
// that long, and when it asks for longer than our cap we give up at once with a
// ProviderRateLimitedError carrying `retryAfterMs`, so a durable caller (the outbox) can come back
// later instead of holding a request open. Every HTTP attempt has its own timeout.
//
// `sleep` and `random` are injectable so tests can check the schedule without waiting.
import { z } from "zod";
import { env } from "../../core/config/env";
import {
  wireDeliveryPage,
  wireError,
  wireHook,
  KEY_PAGE_MAX,
  wireKeyPage,
  wireKeyResult,
  wireRedeliver,
  wireRedeliverFailed,
  wireSecretRotation,
  wireTestEvent,
} from "./api-schema";
import {
  ProviderError,
  ProviderHttpError,
  ProviderNetworkError,
  ProviderRateLimitedError,
  ProviderResponseError,
  ProviderTimeoutError,
  type ProviderErrorCode,
} from "./errors";

export type ProviderDeliveryAttempt = {
  id: string;
  eventId: string;
  tenantId: string;
  attempt: number;
  trigger: "scheduled" | "manual";
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  at: Date;
  nextRetryAt: Date | null;
  succeeded: boolean;
};

export type ProviderKey = {
  id: string;
  tenantId: string;
  status: "active" | "rotated" | "revoked";
  prefix: string;
  scopes: string[];
  createdAt: Date;
};

export type ProviderKeyResult = {
  key: ProviderKey;
  /** The new key's secret, shown once (issue and rotate). */
  secret: string | null;
  previousKeyId: string | null;
  /** The webhook event the change emitted; null when nothing changed (revoking a revoked key). */
  eventId: string | null;
};

/** What one HTTP attempt did; for logs and metrics (`onAttempt`). */
export type ProviderAttemptInfo = {
  method: string;
  path: string;
  attempt: number;
  status: number | null;
  durationMs: number;
  error: ProviderErrorCode | null;
  /** The wait before the next attempt, when there will be one. */
  retryInMs: number | null;
};

export type ProviderClientOptions = {
  baseUrl: string;
  apiKey: string;
  /** Per HTTP attempt. Default 10 s. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 4; 0 disables retrying (the outbox does its own). */
  maxRetries?: number;
  /** Backoff before retry n: min(maxDelayMs, baseDelayMs · 2^(n-1)), half of it jittered. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1); the jitter source. */
  random?: () => number;
  /** Wall clock in ms, to read a Retry-After given as an HTTP date. */
  now?: () => number;
  fetch?: typeof fetch;
  onAttempt?: (info: ProviderAttemptInfo) => void;
};

export type ListDeliveriesOptions = {
  hookId: string;
  cursor?: string | null;
  limit?: number;
  status?: "failed" | "succeeded";
  eventId?: string;
  since?: Date;
  until?: Date;
};

export type ProviderClient = ReturnType<typeof createProviderClient>;

const nonEmpty = z.string().min(1).max(500);
const idempotencyKey = z.string().min(1, "an idempotency key is required").max(255);

export function createProviderClient(options: ProviderClientOptions) {
  const settings = clientSettings(options);
  const call: Call = (spec) => request(settings, spec);
  return { ...webhookCalls(call), ...deliveryCalls(call), ...keyCalls(call) };
}

/** The options with their defaults filled in. */
type ClientSettings = {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  now: () => number;
  fetch: typeof fetch;
  onAttempt?: (info: ProviderAttemptInfo) => void;
};

function clientSettings(options: ProviderClientOptions): ClientSettings {
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? 4,
    baseDelayMs: options.baseDelayMs ?? 200,
    maxDelayMs: options.maxDelayMs ?? 10_000,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    fetch: options.fetch ?? globalThis.fetch,
    onAttempt: options.onAttempt,
  };
}

type CallSpec<T extends z.ZodType> = {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  schema: T;
};

/** One call of the API, retried as the top of this file says; its 2xx body parsed with `schema`. */
type Call = <T extends z.ZodType>(spec: CallSpec<T>) => Promise<z.output<T>>;

function webhookCalls(call: Call) {
  return {
    /** Idempotent on `idempotencyKey`: a retried registration yields the same hook. */
    async registerWebhook(input: { url: string; idempotencyKey: string }) {
      const url = valid(z.url({ protocol: /^https?$/ }), input.url, "url");
      const hook = await call({
        method: "POST",
        path: "/v1/account/webhooks/register",
        body: { url },
        idempotencyKey: requiredIdempotencyKey(input),
        schema: wireHook,
      });
      return providerHook(hook);
    },

    /** The hook as the provider knows it; null when the provider does not know it (any 404). */
    async getWebhook(input: { hookId: string }) {
      try {
        const hook = await call({
          method: "GET",
          path: `/v1/account/webhooks/${segment(input.hookId)}`,
          schema: wireHook,
        });
        return providerHook(hook);
      } catch (error) {
        if (error instanceof ProviderError && error.code === "not_found") return null;
        throw error;
      }
    },

    /** Starts a secret rotation: the provider signs with the old and the new secret until the overlap ends. */
    async rotateWebhookSecret(input: {
      hookId: string;
      idempotencyKey: string;
      secret?: string;
      overlapSeconds?: number;
    }) {
      const result = await call({
        method: "POST",
        path: `/v1/account/webhooks/${segment(input.hookId)}/rotate-secret`,
        body: { secret: input.secret, overlap_seconds: input.overlapSeconds },
        idempotencyKey: requiredIdempotencyKey(input),
        schema: wireSecretRotation,
      });
      return { secret: result.secret, previousSecretValidUntil: result.previous_secret_valid_until };
    },

    /**
     * Asks the provider to emit a test event for `tenantId` and deliver it to this hook only
     * (the readiness check's canary). A provider without the call answers 404 (`not_found`).
     */
    async sendTestEvent(input: { hookId: string; tenantId: string; idempotencyKey: string }) {
      const result = await call({
        method: "POST",
        path: `/v1/account/webhooks/${segment(input.hookId)}/test-event`,
        body: { tenant_id: valid(nonEmpty, input.tenantId, "tenantId") },
        idempotencyKey: requiredIdempotencyKey(input),
        schema: wireTestEvent,
      });
      return { eventId: result.event_id, tenantId: result.tenant_id, sequence: result.sequence };
    },
  };
}

function deliveryCalls(call: Call) {
  return {
    /** Newest attempts first; pass `nextCursor` back as `cursor` for the next page. */
    async listDeliveries(
      input: ListDeliveriesOptions,
    ): Promise<{ items: ProviderDeliveryAttempt[]; nextCursor: string | null }> {
      const limit =
        input.limit === undefined ? undefined : valid(z.number().int().min(1).max(250), input.limit, "limit");
      const page = await call({
        method: "GET",
        path: `/v1/account/webhooks/deliveries/${segment(input.hookId)}`,
        query: {
          cursor: input.cursor ?? undefined,
          limit: limit === undefined ? undefined : String(limit),
          status: input.status,
          event_id: input.eventId,
          since: input.since?.toISOString(),
          until: input.until?.toISOString(),
        },
        schema: wireDeliveryPage,
      });
      return { items: page.items.map(providerDeliveryAttempt), nextCursor: page.next_cursor };
    },

    /** Asks the provider to send one delivery's event again (a new, manual attempt). */
    async redeliver(input: { hookId: string; deliveryId: string; idempotencyKey?: string }) {
      await call({
        method: "POST",
        path: `/v1/account/webhooks/deliveries/${segment(input.hookId)}/${segment(input.deliveryId)}/redeliver`,
        body: {},
        idempotencyKey: input.idempotencyKey,
        schema: wireRedeliver,
      });
      return { accepted: true as const };
    },

    /** Redelivers every event whose delivery is still failed and failed within [since, until]. */
    async redeliverFailed(input: {
      hookId: string;
      since: Date;
      until: Date;
      dryRun: boolean;
      idempotencyKey?: string;
    }) {
      if (!(input.since < input.until)) throw new ProviderError("bad_request", "since must be before until");
      const result = await call({
        method: "POST",
        path: `/v1/account/webhooks/deliveries/${segment(input.hookId)}/redeliver-failed`,
        body: { since: input.since.toISOString(), until: input.until.toISOString(), dry_run: input.dryRun },
        idempotencyKey: input.idempotencyKey,
        schema: wireRedeliverFailed,
      });
      return { count: result.count };
    },
  };
}

function keyCalls(call: Call) {
  /** Issue, rotate and revoke: a POST under a required idempotency key, answered with the change. */
  const changeKey = async (path: string, body: object, input: { idempotencyKey: string }) =>
    keyResult(
      await call({
        method: "POST",
        path,
        body,
        idempotencyKey: requiredIdempotencyKey(input),
        schema: wireKeyResult,
      }),
    );
  return {
    /** A double click or a retry with the same idempotency key mints one key. */
    async issueKey(input: { tenantId: string; scopes: string[]; idempotencyKey: string }): Promise<ProviderKeyResult> {
      const scopes = valid(z.array(z.string().min(1).max(200)).max(100), input.scopes, "scopes");
      return changeKey(`/v1/tenants/${segment(input.tenantId)}/keys`, { scopes }, input);
    },

    async rotateKey(input: { tenantId: string; keyId: string; idempotencyKey: string }): Promise<ProviderKeyResult> {
      return changeKey(`/v1/tenants/${segment(input.tenantId)}/keys/${segment(input.keyId)}/rotate`, {}, input);
    },

    /**
     * One page of a tenant's keys as the provider knows them (every status), in the provider's
     * order; pass `nextCursor` back as `cursor` for the next page. A GET: 429 and 5xx are retried
     * like every other call (Retry-After honoured), so a caller paging through a large tenant
     * only sees the failure that outlasted the retries.
     */
    async listKeys(input: {
      tenantId: string;
      cursor?: string | null;
      limit?: number;
    }): Promise<{ items: ProviderKey[]; nextCursor: string | null }> {
      const limit =
        input.limit === undefined ? undefined : valid(z.number().int().min(1).max(KEY_PAGE_MAX), input.limit, "limit");
      const cursor =
        input.cursor === undefined || input.cursor === null ? undefined : valid(nonEmpty, input.cursor, "cursor");
      const page = await call({
        method: "GET",
        path: `/v1/tenants/${segment(input.tenantId)}/keys`,
        query: { cursor, limit: limit === undefined ? undefined : String(limit) },
        schema: wireKeyPage,
      });
      return { items: page.items.map(providerKey), nextCursor: page.next_cursor };
    },

    /** Revoking a key the provider already revoked succeeds with `eventId: null`. */
    async revokeKey(input: { tenantId: string; keyId: string; idempotencyKey: string }): Promise<ProviderKeyResult> {
      return changeKey(`/v1/tenants/${segment(input.tenantId)}/keys/${segment(input.keyId)}/revoke`, {}, input);
    },
  };
}

/** The request helper every call shares: send, and on a failure retry or give up. */
async function request<T extends z.ZodType>(settings: ClientSettings, spec: CallSpec<T>): Promise<z.output<T>> {
  const prepared = prepareRequest(settings, spec);
  const safeToRepeat = spec.method === "GET" || spec.idempotencyKey !== undefined;
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    const outcome = await sendOnce(settings, spec, prepared, attempt);
    if (outcome.ok) {
      report(settings, spec, { attempt, status: outcome.status, started, error: null, retryInMs: null });
      return outcome.value;
    }
    const { failure, status } = outcome;
    const waitMs = retryWaitMs(settings, failure, safeToRepeat, attempt);
    report(settings, spec, { attempt, status, started, error: failure.code, retryInMs: waitMs });
    if (waitMs === null) throw failure;
    await settings.sleep(waitMs);
  }
}

type PreparedRequest = { url: URL; headers: Record<string, string>; body: string | undefined };

function prepareRequest(settings: ClientSettings, spec: CallSpec<z.ZodType>): PreparedRequest {
  const url = new URL(settings.baseUrl + spec.path);
  for (const [name, value] of Object.entries(spec.query ?? {}))
    if (value !== undefined) url.searchParams.set(name, value);
  const headers: Record<string, string> = { authorization: `Bearer ${settings.apiKey}`, accept: "application/json" };
  if (spec.body !== undefined) headers["content-type"] = "application/json";
  if (spec.idempotencyKey) headers["idempotency-key"] = spec.idempotencyKey;
  return { url, headers, body: spec.body === undefined ? undefined : JSON.stringify(spec.body) };
}

type AttemptOutcome<T> =
  { ok: true; status: number; value: T } | { ok: false; status: number | null; failure: ProviderError };

/** One HTTP attempt under its own timeout; a 2xx body that does not parse is thrown (repeating will not help). */
async function sendOnce<T extends z.ZodType>(
  settings: ClientSettings,
  spec: CallSpec<T>,
  prepared: PreparedRequest,
  attempt: number,
): Promise<AttemptOutcome<z.output<T>>> {
  const { fetch: fetchImpl } = settings;
  let status: number | null = null;
  try {
    const response = await fetchImpl(prepared.url, {
      method: spec.method,
      headers: prepared.headers,
      body: prepared.body,
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    status = response.status;
    const text = await response.text();
    if (response.ok) return { ok: true, status, value: parseBody(text, spec.schema, { status, attempts: attempt }) };
    return { ok: false, status, failure: httpFailure(response, text, attempt, settings.now) };
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    return { ok: false, status, failure: transportFailure(error, attempt, settings) };
  }
}

/** The wait before the next attempt, or null to give up with this failure. */
function retryWaitMs(
  settings: ClientSettings,
  failure: ProviderError,
  safeToRepeat: boolean,
  attempt: number,
): number | null {
  const retryable = failure.code === "rate_limited" || (safeToRepeat && failure.retryable);
  if (!retryable || attempt > settings.maxRetries) return null;
  // Asked to wait longer than we are willing to block: let a durable caller come back later.
  if (failure.retryAfterMs !== null && failure.retryAfterMs > settings.maxDelayMs) return null;
  return failure.retryAfterMs ?? backoffMs(settings, attempt);
}

function backoffMs(settings: ClientSettings, retry: number): number {
  const exponential = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (retry - 1));
  return Math.round(exponential / 2 + (settings.random() * exponential) / 2);
}

function report(
  settings: ClientSettings,
  spec: { method: string; path: string },
  attempt: {
    attempt: number;
    status: number | null;
    started: number;
    error: ProviderErrorCode | null;
    retryInMs: number | null;
  },
) {
  settings.onAttempt?.({
    method: spec.method,
    path: spec.path,
    attempt: attempt.attempt,
    status: attempt.status,
    durationMs: Math.round(performance.now() - attempt.started),
    error: attempt.error,
    retryInMs: attempt.retryInMs,
  });
}

/** Retry-After in ms, given in seconds or as an HTTP date. */
function retryAfterOf(response: Response, now: () => number): number | null {
  const raw = response.headers.get("retry-after");
  if (!raw) return null;
  if (/^\d+(\.\d+)?$/.test(raw.trim())) return Math.round(Number(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now());
}

function httpFailure(response: Response, text: string, attempts: number, now: () => number): ProviderError {
  const status = response.status;
  const said = wireErrorOf(text);
  const details = {
    status,
    attempts,
    retryAfterMs: retryAfterOf(response, now),
    providerCode: said?.code ?? null,
    providerMessage: said?.message.slice(0, 300) ?? null,
  };
  const words = said ? `: ${said.code}: ${said.message}`.slice(0, 302) : "";
  const message = `provider answered ${status}${words}`;
  if (status === 429) return new ProviderRateLimitedError(message, details);
  if (status >= 500) return new ProviderHttpError("server_error", message, details);
  if (status === 401 || status === 403) return new ProviderHttpError("unauthorized", message, details);
  if (status === 404) return new ProviderHttpError("not_found", message, details);
  if (status === 409) return new ProviderHttpError("conflict", message, details);
  if (status >= 400) return new ProviderHttpError("bad_request", message, details);
  return new ProviderResponseError(`provider answered an unexpected ${status}`, details);
}

function transportFailure(error: unknown, attempts: number, settings: ClientSettings): ProviderError {
  const name = (error as { name?: string })?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return new ProviderTimeoutError(`provider did not answer within ${settings.timeoutMs} ms`, {
      attempts,
      cause: error,
    });
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new ProviderNetworkError(`could not reach the provider at ${settings.baseUrl} (${reason})`, {
    attempts,
    cause: error,
  });
}

/** The client for this deployment: PROVIDER_URL, PROVIDER_API_KEY, PROVIDER_TIMEOUT_MS. */
export function providerClientFromEnv(overrides: Partial<ProviderClientOptions> = {}): ProviderClient {
  const config = env();
  return createProviderClient({
    baseUrl: config.PROVIDER_URL,
    apiKey: config.PROVIDER_API_KEY,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    ...overrides,
  });
}

function requiredIdempotencyKey(input: { idempotencyKey: string }): string {
  return valid(idempotencyKey, input.idempotencyKey, "idempotencyKey");
}

function segment(value: string): string {
  return encodeURIComponent(valid(nonEmpty, value, "id"));
}

/** Our own bad argument is a typed bad_request, raised before anything is sent. */
function valid<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ProviderError("bad_request", `invalid ${what}: ${parsed.error.issues[0]!.message}`, { attempts: 0 });
}

function providerHook(wire: z.output<typeof wireHook>) {
  return { hookId: wire.hook_id, url: wire.url, createdAt: wire.created_at };
}

function providerDeliveryAttempt(wire: z.output<typeof wireDeliveryPage>["items"][number]): ProviderDeliveryAttempt {
  return {
    id: wire.id,
    eventId: wire.event_id,
    tenantId: wire.tenant_id,
    attempt: wire.attempt,
    trigger: wire.trigger,
    statusCode: wire.status_code,
    durationMs: wire.duration_ms,
    responseExcerpt: wire.response_excerpt,
    error: wire.error,
    at: wire.at,
    nextRetryAt: wire.next_retry_at,
    succeeded: wire.succeeded,
  };
}

function providerKey(wire: z.output<typeof wireKeyResult>["key"]): ProviderKey {
  return {
    id: wire.id,
    tenantId: wire.tenant_id,
    status: wire.status,
    prefix: wire.prefix,
    scopes: wire.scopes,
    createdAt: wire.created_at,
  };
}

function keyResult(wire: z.output<typeof wireKeyResult>): ProviderKeyResult {
  return {
    key: providerKey(wire.key),
    secret: wire.secret,
    previousKeyId: wire.previous_key_id,
    eventId: wire.event_id,
  };
}

function parseBody<T extends z.ZodType>(
  text: string,
  schema: T,
  details: { status: number; attempts: number },
): z.output<T> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    throw new ProviderResponseError(`provider answered ${details.status} with a body that is not JSON`, details);
  }
  const parsed = schema.safeParse(decoded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ProviderResponseError(
      `provider answered ${details.status} with an unexpected body (${issue.path.join(".") || "body"}: ${issue.message})`,
      details,
    );
  }
  return parsed.data;
}

/** The provider's own words (its error body); never the raw body (it may be huge or an HTML error page). */
function wireErrorOf(text: string): { code: string; message: string } | null {
  try {
    const parsed = wireError.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data.error;
  } catch {
    // not JSON
  }
  return null;
}
