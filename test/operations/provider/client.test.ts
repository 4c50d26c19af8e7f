// The provider client against a scripted local HTTP server: the retry schedule is read from an
// injected `sleep` that records each wait and returns at once, so nothing here waits for real
// (except the timeout case, bounded by its 150 ms timeout).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/core/errors";
import { createProviderClient, type ProviderClientOptions } from "@/lib/operations/provider/client";
import {
  ProviderError,
  ProviderHttpError,
  ProviderNetworkError,
  ProviderRateLimitedError,
  ProviderResponseError,
  ProviderTimeoutError,
  toAppError,
} from "@/lib/operations/provider/errors";

type Scripted = { status: number; body?: unknown; headers?: Record<string, string>; hang?: boolean };
type Received = { method: string; url: string; headers: IncomingMessage["headers"]; body: string };

let server: Server;
let baseUrl: string;
let script: Scripted[] = [];
let received: Received[] = [];
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const next = script.shift() ?? {
        status: 500,
        body: { error: { code: "unscripted", message: "no scripted answer" } },
      };
      if (next.hang) return void hanging.push(res);
      res.writeHead(next.status, { "content-type": "application/json", ...next.headers });
      res.end(typeof next.body === "string" ? next.body : JSON.stringify(next.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  script = [];
  received = [];
  for (const res of hanging.splice(0)) res.destroy();
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const hook = { hook_id: "hook_1", url: "http://app.test/api/webhooks/keys", created_at: "2026-11-29T10:00:00.000Z" };
const keyResult = {
  key: {
    id: "key_1",
    tenant_id: "district-1",
    status: "revoked",
    prefix: "ik_live_ab12",
    scopes: ["rosters:read"],
    created_at: "2026-11-29T10:00:00.000Z",
  },
  secret: null,
  previous_key_id: null,
  event_id: "evt_1",
};

function client(overrides: Partial<ProviderClientOptions> = {}) {
  const waits: number[] = [];
  const instance = createProviderClient({
    baseUrl,
    apiKey: "pk_test_key_123",
    sleep: async (ms) => void waits.push(ms),
    random: () => 1, // no jitter: the schedule is exact
    ...overrides,
  });
  return { instance, waits };
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("provider client: retries", () => {
  it("waits exactly what Retry-After says (seconds) after a 429, then succeeds", async () => {
    script = [
      { status: 429, headers: { "retry-after": "3" }, body: { error: { code: "rate_limited", message: "slow down" } } },
      { status: 201, body: hook },
    ];
    const { instance, waits } = client();
    const result = await instance.registerWebhook({ url: hook.url, idempotencyKey: "reg-1" });
    expect(result).toEqual({ hookId: "hook_1", url: hook.url, createdAt: new Date(hook.created_at) });
    expect(waits).toEqual([3_000]);
    expect(received).toHaveLength(2);
    // The retry repeats the same idempotency key, so the provider can answer it with the first result.
    expect(received.map((r) => r.headers["idempotency-key"])).toEqual(["reg-1", "reg-1"]);
    expect(received[0]!.headers.authorization).toBe("Bearer pk_test_key_123");
  });

  it("reads Retry-After given as an HTTP date against its clock", async () => {
    const now = Date.parse("2026-11-29T10:00:00Z");
    script = [
      { status: 429, headers: { "retry-after": new Date(now + 7_000).toUTCString() } },
      { status: 200, body: { items: [], next_cursor: null } },
    ];
    const { instance, waits } = client({ now: () => now });
    await instance.listDeliveries({ hookId: "hook_1" });
    expect(waits).toEqual([7_000]);
  });

  it("backs off exponentially and never waits longer than the cap", async () => {
    script = [
      ...Array.from({ length: 5 }, () => ({ status: 503 })),
      { status: 200, body: { items: [], next_cursor: null } },
    ];
    const { instance, waits } = client({ maxRetries: 5, baseDelayMs: 100, maxDelayMs: 400 });
    await instance.listDeliveries({ hookId: "hook_1" });
    expect(waits).toEqual([100, 200, 400, 400, 400]);
    expect(received).toHaveLength(6);
  });

  it("jitters within [half, full] of the capped delay", async () => {
    script = [
      { status: 502 },
      { status: 502 },
      { status: 502 },
      { status: 200, body: { items: [], next_cursor: null } },
    ];
    const { instance, waits } = client({ maxRetries: 3, baseDelayMs: 100, maxDelayMs: 150, random: () => 0 });
    await instance.listDeliveries({ hookId: "hook_1" });
    expect(waits).toEqual([50, 75, 75]);
  });

  it("gives up at once, with retryAfterMs for a durable caller, when Retry-After exceeds the cap", async () => {
    script = [{ status: 429, headers: { "retry-after": "3600" } }];
    const { instance, waits } = client({ maxDelayMs: 10_000 });
    const error = await failure(instance.revokeKey({ tenantId: "district-1", keyId: "key_1", idempotencyKey: "rv-1" }));
    expect(error).toBeInstanceOf(ProviderRateLimitedError);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(error.retryable).toBe(true);
    expect(waits).toEqual([]);
    expect(received).toHaveLength(1);
  });

  it("stops after maxRetries and reports how many attempts it made", async () => {
    script = [{ status: 500 }, { status: 500 }, { status: 500 }];
    const { instance, waits } = client({ maxRetries: 2 });
    const error = await failure(instance.issueKey({ tenantId: "district-1", scopes: ["a"], idempotencyKey: "is-1" }));
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error.code).toBe("server_error");
    expect(error.attempts).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it("does not repeat a POST without an idempotency key after a 5xx (it may have happened), but does after a 429", async () => {
    script = [{ status: 503 }];
    const { instance } = client();
    const error = await failure(instance.redeliver({ hookId: "hook_1", deliveryId: "att_1" }));
    expect(error.code).toBe("server_error");
    expect(received).toHaveLength(1);

    received = [];
    script = [
      { status: 429, headers: { "retry-after": "1" } },
      { status: 202, body: { accepted: true } },
    ];
    await expect(instance.redeliver({ hookId: "hook_1", deliveryId: "att_1" })).resolves.toEqual({ accepted: true });
    expect(received).toHaveLength(2);
  });

  it("maxRetries 0 makes exactly one attempt", async () => {
    script = [{ status: 429, headers: { "retry-after": "1" } }];
    const { instance, waits } = client({ maxRetries: 0 });
    const error = await failure(instance.revokeKey({ tenantId: "district-1", keyId: "key_1", idempotencyKey: "rv-2" }));
    expect(error.code).toBe("rate_limited");
    expect(error.retryAfterMs).toBe(1_000);
    expect(waits).toEqual([]);
  });
});

describe("provider client: typed errors", () => {
  it.each([
    [401, "unauthorized", "unavailable"],
    [403, "unauthorized", "unavailable"],
    [404, "not_found", "not_found"],
    [409, "conflict", "conflict"],
    [422, "bad_request", "bad_request"],
  ] as const)("%i → %s (AppError %s), not retried", async (status, code, appCode) => {
    script = [{ status, body: { error: { code: "x", message: "refused" } } }];
    const { instance } = client();
    const error = await failure(instance.rotateKey({ tenantId: "district-1", keyId: "key_1", idempotencyKey: "ro-1" }));
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.message).toContain("refused");
    expect(received).toHaveLength(1);
    const mapped = toAppError(error);
    expect(mapped).toBeInstanceOf(AppError);
    expect(mapped.code).toBe(appCode);
  });

  it("a 2xx with a body that breaks the contract is a ProviderResponseError", async () => {
    script = [{ status: 200, body: "<html>oops</html>" }];
    const { instance } = client();
    expect(await failure(instance.revokeKey({ tenantId: "d", keyId: "k", idempotencyKey: "rv-3" }))).toBeInstanceOf(
      ProviderResponseError,
    );

    script = [{ status: 200, body: { ...keyResult, key: { ...keyResult.key, status: "zombie" } } }];
    const error = await failure(instance.revokeKey({ tenantId: "d", keyId: "k", idempotencyKey: "rv-4" }));
    expect(error.code).toBe("bad_response");
    expect(error.message).toContain("key.status");
  });

  it("an unanswered call times out as ProviderTimeoutError (and maps to unavailable)", async () => {
    script = [{ status: 200, hang: true }];
    const { instance } = client({ timeoutMs: 150, maxRetries: 0 });
    const error = await failure(instance.listDeliveries({ hookId: "hook_1" }));
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(toAppError(error).code).toBe("unavailable");
  });

  it("a timeout is retried for a request safe to repeat", async () => {
    script = [
      { status: 200, hang: true },
      { status: 200, body: keyResult },
    ];
    const { instance, waits } = client({ timeoutMs: 150, maxRetries: 1, baseDelayMs: 10 });
    const result = await instance.revokeKey({ tenantId: "district-1", keyId: "key_1", idempotencyKey: "rv-5" });
    expect(result.key.status).toBe("revoked");
    expect(waits).toEqual([10]);
  });

  it("an unreachable provider is a ProviderNetworkError", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { instance } = client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const error = await failure(instance.listDeliveries({ hookId: "hook_1" }));
    expect(error).toBeInstanceOf(ProviderNetworkError);
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("refuses its own bad arguments before sending anything", async () => {
    const { instance } = client();
    const error = await failure(instance.revokeKey({ tenantId: "district-1", keyId: "key_1", idempotencyKey: "" }));
    expect(error.code).toBe("bad_request");
    expect(received).toHaveLength(0);
  });

  it("sends list filters as query parameters and maps the page", async () => {
    script = [
      {
        status: 200,
        body: {
          items: [
            {
              id: "att_1",
              event_id: "evt_1",
              tenant_id: "district-1",
              attempt: 2,
              trigger: "manual",
              status_code: 503,
              duration_ms: 12,
              response_excerpt: "busy",
              error: "receiver answered 503",
              at: "2026-11-29T10:00:00.000Z",
              next_retry_at: null,
              succeeded: false,
            },
          ],
          next_cursor: "41",
        },
      },
    ];
    const { instance } = client();
    const page = await instance.listDeliveries({
      hookId: "hook/1",
      cursor: "42",
      limit: 10,
      status: "failed",
      eventId: "evt_1",
      since: new Date("2026-11-29T00:00:00Z"),
      until: new Date("2026-11-30T00:00:00Z"),
    });
    const url = new URL(received[0]!.url, baseUrl);
    expect(url.pathname).toBe("/v1/account/webhooks/deliveries/hook%2F1");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      cursor: "42",
      limit: "10",
      status: "failed",
      event_id: "evt_1",
      since: "2026-11-29T00:00:00.000Z",
      until: "2026-11-30T00:00:00.000Z",
    });
    expect(page.nextCursor).toBe("41");
    expect(page.items[0]).toMatchObject({
      id: "att_1",
      eventId: "evt_1",
      trigger: "manual",
      statusCode: 503,
      at: new Date("2026-11-29T10:00:00Z"),
      nextRetryAt: null,
    });
  });
});
