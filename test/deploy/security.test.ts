// The browser-side hardening and the forwarded-header rules, on the deployable artifact (the
// production server exactly as shipped): every page's headers over http and https, forged
// server-action POSTs, what X-Forwarded-* may move with and without a trusted proxy, and receipts
// for requests the HTTP parser refuses or whose body is cut off.
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, prisma } from "@/lib/core/db/client";
import { resetEnvForTests } from "@/lib/core/config/env";
import { DEMO_PASSWORD } from "@/lib/operations/demo/demo-data";
import { seedDemoData } from "@/lib/operations/demo/seed-demo-data";
import { nextDemoCode } from "../support/demo-totp";
import { HSTS_MAX_AGE_SECONDS } from "@/http/security-headers";
import { TEST_ENCRYPTION_KEYS } from "../support/encryption-keys";
import { copyArtifact, createEmptyDatabase, DEPLOY_PORT, startArtifact, type RunningArtifact } from "./standalone-app";

const PLAIN_PORT = DEPLOY_PORT + 4; // NEXTAUTH_URL http://127.0.0.1:PORT, no trusted proxy
const PROXIED_PORT = DEPLOY_PORT + 5; // behind a proxy: NEXTAUTH_URL https://keyhook.example.org, 1 hop
const PUBLIC_ORIGIN = "https://keyhook.example.org";
const ADMIN = "admin@keyhook.test";

type Reply = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** One request with exactly these headers (Host included: fetch would not send a chosen one). */
function request(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body = options.body ?? "";
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "GET",
        headers: { ...(body ? { "content-length": String(Buffer.byteLength(body)) } : {}), ...options.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const cookiesOf = (reply: Reply) => (reply.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]!);

/** next-auth's own credentials flow; the cookie header of the session. Extra headers go on the sign-in POST. */
async function signIn(
  port: number,
  options: { email?: string; password?: string; headers?: Record<string, string> } = {},
) {
  const csrf = await request(port, "/api/auth/csrf");
  const jar = cookiesOf(csrf);
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
  const form = new URLSearchParams({
    csrfToken,
    email: options.email ?? ADMIN,
    password: options.password ?? DEMO_PASSWORD,
    json: "true",
  });
  const reply = await request(port, "/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; "), ...options.headers },
    body: form.toString(),
  });
  jar.push(...cookiesOf(reply));
  // A staff account's second step: a code of the demo authenticator key the seed enrolled.
  const step = await request(port, "/signin/factor", { headers: { cookie: jar.join("; "), ...options.headers } });
  if (step.status === 200) {
    const factor = await request(port, "/api/auth/callback/mfa", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; "), ...options.headers },
      body: new URLSearchParams({ csrfToken, totp: await nextDemoCode(ADMIN), json: "true" }).toString(),
    });
    expect(factor.status, `the second factor: ${factor.body}`).toBe(200);
    jar.push(...cookiesOf(factor));
  }
  return { reply, cookie: latestCookies(jar) };
}

/** The cookie header a browser would send: the last value set for each name. */
const latestCookies = (pairs: string[]) =>
  [...new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair])).values()].join("; ");

// One staff session per server: each sign-in spends a code of the demo key, and a code is taken once.
const sessions = new Map<number, Promise<string>>();
const sessionOf = (port: number, headers: Record<string, string> = {}) => {
  if (!sessions.has(port))
    sessions.set(
      port,
      signIn(port, { headers }).then(({ cookie }) => cookie),
    );
  return sessions.get(port)!;
};

const PAGES = [
  "/overview",
  "/alerts",
  "/districts",
  "/districts/district-4417",
  "/ledger",
  "/deliveries",
  "/quarantine",
  "/retention",
  "/audit",
  "/users",
  "/settings",
  "/readiness",
];

function expectPagePolicy(reply: Reply, https: boolean): string {
  const policy = String(reply.headers["content-security-policy"]);
  const directives = Object.fromEntries(
    policy.split(";").map((d) => {
      const [name, ...rest] = d.trim().split(/\s+/);
      return [name, rest.join(" ")];
    }),
  );
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(directives["script-src"] ?? "")?.[1];
  expect(nonce, policy).toBeTruthy();
  expect(directives["script-src"]).toBe(`'self' 'nonce-${nonce}' 'strict-dynamic'`);
  expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(directives).toMatchObject({
    "object-src": "'none'",
    "base-uri": "'none'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
  });
  expect("upgrade-insecure-requests" in directives).toBe(https);
  // Every script Next wrote carries this response's nonce.
  const scripts = [...reply.body.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  expect(scripts.length).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  expectEveryResponseHeaders(reply, https);
  return nonce!;
}

function expectEveryResponseHeaders(reply: Reply, https: boolean): void {
  expect(reply.headers["x-content-type-options"]).toBe("nosniff");
  expect(reply.headers["referrer-policy"]).toBe("same-origin");
  expect(reply.headers["x-frame-options"]).toBe("DENY");
  if (https) {
    const maxAge = Number(/max-age=(\d+)/.exec(String(reply.headers["strict-transport-security"]))?.[1]);
    expect(maxAge).toBeGreaterThanOrEqual(HSTS_MAX_AGE_SECONDS);
  } else {
    expect(reply.headers["strict-transport-security"]).toBeUndefined();
  }
}

/** The first key with a Revoke button on a district page, and a call of its action as the browser's React encodes one. */
async function revokeCall(port: number, cookie: string, headers: Record<string, string>, district: string) {
  const page = await request(port, `/districts/${district}`, { headers: { cookie, ...headers } });
  const form = /\\"action\\":\\"\$h(\w+)\\",\\"hidden\\":\{\\"keyId\\":\\"(\w+)\\"\},\\"submitLabel\\":\\"Revoke/.exec(
    page.body,
  );
  const actionId = form && new RegExp(`\\\\n${form[1]}:\\{\\\\"id\\\\":\\\\"([0-9a-f]+)\\\\"`).exec(page.body)?.[1];
  expect(actionId, `a revoke action on ${district}`).toBeTruthy();
  const boundary = "----keyhook-test";
  const part = (name: string, value: string) =>
    `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  return {
    keyId: form![2]!,
    path: `/districts/${district}`,
    body: `${part("_1_keyId", form![2]!)}${part("0", '[null,"$K1"]')}--${boundary}--\r\n`,
    headers: {
      cookie,
      "next-action": actionId!,
      accept: "text/x-component",
      "content-type": `multipart/form-data; boundary=${boundary}`,
    },
  };
}

const keyStatus = async (id: string) => (await prisma.apiKey.findUnique({ where: { id } }))?.status;

describe("the artifact's browser and proxy hardening", () => {
  let artifact: ReturnType<typeof copyArtifact>;
  let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
  let plain: RunningArtifact;
  let proxied: RunningArtifact;
  const fileDatabase = process.env.DATABASE_URL;
  const fileEncryptionKeys = process.env.SECRETS_ENCRYPTION_KEYS;

  beforeAll(async () => {
    artifact = copyArtifact();
    database = await createEmptyDatabase();
    plain = await startArtifact({
      dir: artifact.dir,
      databaseUrl: database.url,
      port: PLAIN_PORT,
      env: { REFUSED_RECEIPTS_PER_MINUTE: "2" },
    });
    proxied = await startArtifact({
      dir: artifact.dir,
      databaseUrl: database.url,
      port: PROXIED_PORT,
      env: { NEXTAUTH_URL: PUBLIC_ORIGIN, TRUSTED_PROXY_HOPS: "1" },
    });
    process.env.DATABASE_URL = database.url;
    // The seed seals the demo authenticator key: with the servers' key, so they can open it.
    process.env.SECRETS_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
    resetEnvForTests();
    await seedDemoData();
  }, 180_000);

  afterAll(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = fileDatabase;
    if (fileEncryptionKeys === undefined) delete process.env.SECRETS_ENCRYPTION_KEYS;
    else process.env.SECRETS_ENCRYPTION_KEYS = fileEncryptionKeys;
    resetEnvForTests();
    await plain?.kill();
    await proxied?.kill();
    await database?.drop();
    artifact?.remove();
  });

  it("every page, a 404 and the sign-in page carry a fresh-nonce policy and the headers, over http and https", async () => {
    for (const [port, https, proxyHeaders] of [
      [PLAIN_PORT, false, {}],
      [
        PROXIED_PORT,
        true,
        { "x-forwarded-host": "keyhook.example.org", "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.5" },
      ],
    ] as const) {
      const cookie = await sessionOf(port, proxyHeaders);
      const nonces = new Set<string>();
      for (const path of [...PAGES, "/no-such-page"]) {
        const reply = await request(port, path, { headers: { cookie, ...proxyHeaders } });
        expect(reply.status, `${port} ${path}`).toBe(path === "/no-such-page" ? 404 : 200);
        nonces.add(expectPagePolicy(reply, https));
      }
      const signin = await request(port, "/signin", { headers: proxyHeaders });
      expect(signin.status).toBe(200);
      nonces.add(expectPagePolicy(signin, https));
      expect(nonces.size).toBe(PAGES.length + 2); // a fresh nonce per response
      // Not a page: nothing may run, and the headers every response carries.
      const health = await request(port, "/api/health");
      expect(health.headers["content-security-policy"]).toBe(
        "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      );
      expectEveryResponseHeaders(health, https);
    }
  });

  it("answers the browser's own /favicon.ico: the page's icon link is streamed and can come after the browser asks", async () => {
    const reply = await request(PLAIN_PORT, "/favicon.ico");
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("image/x-icon");
    expectEveryResponseHeaders(reply, false);
  });

  it("no trusted proxy: a forged server-action POST is refused whatever Origin / X-Forwarded-Host / Host it carries; the real origin is accepted", async () => {
    const cookie = await sessionOf(PLAIN_PORT);
    const self = `127.0.0.1:${PLAIN_PORT}`;
    const call = await revokeCall(PLAIN_PORT, cookie, {}, "district-0935");
    for (const origin of ["https://evil.example", "null", `https://${self}`, "http://evil.example"])
      for (const forwardedHost of [undefined, "evil.example", self])
        for (const host of [self, "evil.example"])
          for (const path of [call.path, `/api/..${call.path}`, `/api/%2e%2e${call.path}`]) {
            const headers: Record<string, string> = { ...call.headers, origin, host };
            if (forwardedHost) headers["x-forwarded-host"] = forwardedHost;
            const reply = await request(PLAIN_PORT, path, { method: "POST", headers, body: call.body });
            expect(reply.status, JSON.stringify({ origin, forwardedHost, host, path })).toBe(403);
          }
    expect(await keyStatus(call.keyId)).toBe("active");

    const real = await request(PLAIN_PORT, call.path, {
      method: "POST",
      headers: { ...call.headers, origin: `http://${self}`, host: self, "x-forwarded-host": "evil.example" },
      body: call.body,
    });
    expect(real.status).toBe(200);
    expect(real.body).toContain(`Revoked ${call.keyId} here and sent the revoke to the provider.`);
    expect(await keyStatus(call.keyId)).toBe("revoked");
  });

  it("behind the documented proxy (TRUSTED_PROXY_HOPS=1), the public origin is accepted and another refused", async () => {
    const proxy = {
      host: `127.0.0.1:${PROXIED_PORT}`,
      "x-forwarded-host": "keyhook.example.org",
      "x-forwarded-proto": "https",
      "x-forwarded-for": "203.0.113.5",
    };
    const cookie = await sessionOf(PROXIED_PORT, proxy);
    const call = await revokeCall(PROXIED_PORT, cookie, proxy, "district-4417");
    const forged = await request(PROXIED_PORT, call.path, {
      method: "POST",
      headers: { ...call.headers, ...proxy, origin: "https://evil.example", "x-forwarded-host": "evil.example" },
      body: call.body,
    });
    expect(forged.status).toBe(403);
    expect(await keyStatus(call.keyId)).toBe("active");
    const real = await request(PROXIED_PORT, call.path, {
      method: "POST",
      headers: { ...call.headers, ...proxy, origin: PUBLIC_ORIGIN },
      body: call.body,
    });
    expect(real.status).toBe(200);
    expect(real.body).toContain(`Revoked ${call.keyId} here and sent the revoke to the provider.`);
    expect(await keyStatus(call.keyId)).toBe("revoked");
  });

  it("the sign-in throttle and redirects ignore X-Forwarded-* without a trusted proxy, and use the proxy's with one", async () => {
    await prisma.signInAddressThrottle.deleteMany();
    for (const forged of ["198.51.100.1", "198.51.100.2", "198.51.100.3"])
      await signIn(PLAIN_PORT, { password: "wrong-password", headers: { "x-forwarded-for": forged } });
    expect(await prisma.signInAddressThrottle.findMany({ select: { address: true, failedLogins: true } })).toEqual([
      { address: "127.0.0.1", failedLogins: 3 },
    ]);
    await signIn(PROXIED_PORT, {
      password: "wrong-password",
      headers: { "x-forwarded-for": "198.51.100.9, 203.0.113.5" },
    });
    expect(
      (await prisma.signInAddressThrottle.findMany({ orderBy: { address: "asc" } })).map((r) => r.address),
    ).toEqual(["127.0.0.1", "203.0.113.5"]);

    const redirected = await request(PLAIN_PORT, "/overview", {
      headers: { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
    });
    expect(redirected.status).toBe(307);
    expect(redirected.headers.location).toBe("/signin?callbackUrl=%2Foverview");
  });

  it("a request the HTTP parser refuses and a body cut off mid-way leave receipts (400), within REFUSED_RECEIPTS_PER_MINUTE", async () => {
    await prisma.receipt.deleteMany();
    const raw = (bytes: string, hangUp = false) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(PLAIN_PORT, "127.0.0.1");
        const chunks: Buffer[] = [];
        socket.on("data", (chunk: Buffer) => chunks.push(chunk));
        socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
        socket.on("error", () => resolve(""));
        socket.write(bytes, () => hangUp && setTimeout(() => socket.destroy(), 100));
      });
    const bad = (i: number) =>
      `POST /api/webhooks/keys HTTP/1.1\r\nHost: x\r\nwebhook-id: evt_bad_${i}\r\ncontent-length: 1x\r\n\r\n`;
    expect(await raw(bad(1))).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    await raw(
      `POST /api/webhooks/keys HTTP/1.1\r\nHost: x\r\nwebhook-id: evt_cut\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n{"id":`,
      true,
    );
    expect(await raw(bad(2))).toMatch(/^HTTP\/1\.1 400 /); // over the limit of 2: answered, not stored
    let rows: { status: number; webhookId: string | null; error: string | null }[] = [];
    for (let i = 0; i < 100 && rows.length < 2; i++) {
      rows = await prisma.receipt.findMany({
        orderBy: { id: "asc" },
        select: { status: true, webhookId: true, error: true },
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(rows).toEqual([
      { status: 400, webhookId: "evt_bad_1", error: "refused by the HTTP parser: Invalid character in Content-Length" },
      { status: 400, webhookId: "evt_cut", error: "the body ended after 6 bytes, before the request did" },
    ]);
  });
});
