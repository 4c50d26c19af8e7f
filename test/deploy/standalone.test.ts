// The deployable artifact runs from the build output alone: copied outside the checkout, started
// with `node keyhook-start.mjs` on an empty database, it migrates it, passes the health check
// and commits one signed delivery (the Dockerfile's runtime stage runs the same command).
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { createInterface } from "node:readline";
import pg from "pg";
import { TEST_AUDIT_SIGNING_KEY, TEST_ENCRYPTION_KEYS } from "../support/encryption-keys";
import { TEST_SECRET } from "../support/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ARTIFACT,
  copyArtifact,
  createEmptyDatabase,
  DEPLOY_PORT,
  nodeModulesAbove,
  postSigned,
  startArtifact,
  type RunningArtifact,
} from "./standalone-app";

describe("standalone artifact", () => {
  let artifact: ReturnType<typeof copyArtifact>;
  let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
  let app: RunningArtifact;

  beforeAll(async () => {
    artifact = copyArtifact();
    database = await createEmptyDatabase();
    app = await startArtifact({ dir: artifact.dir, databaseUrl: database.url, port: DEPLOY_PORT });
  });

  afterAll(async () => {
    await app?.kill();
    await database?.drop();
    artifact?.remove();
  });

  it("runs outside the checkout, with no node_modules on any parent path", () => {
    expect(artifact.dir.startsWith(process.cwd())).toBe(false);
    expect(nodeModulesAbove(artifact.dir)).toEqual([]);
  });

  // The build's file tracer copies what the server may read: a path it cannot pin down takes the
  // whole checkout (sources, tests, docs), and a static one under .data/ took the local keys.
  it("holds the app alone: nothing else of the checkout, no local keys", () => {
    expect(readdirSync(ARTIFACT).sort()).toEqual([
      ".next",
      "keyhook-start.mjs",
      "keyhook-worker.mjs",
      "node_modules",
      "package.json",
      "prisma",
      "server.js",
    ]);
  });

  it("applied the migrations to the empty database at start", () => {
    expect(app.output.join("\n")).toMatch(/keyhook: database ready; applied \d{14}_init/);
  });

  it("passes the health check", async () => {
    const response = await fetch(`${app.baseUrl}/api/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true });
  });

  it("serves the dashboard's sign-in page with its static assets", async () => {
    const html = await (await fetch(`${app.baseUrl}/signin`)).text();
    const stylesheet = /\/_next\/static\/[^"]+\.css/.exec(html)?.[0];
    expect(stylesheet).toBeDefined();
    expect((await fetch(`${app.baseUrl}${stylesheet}`)).status).toBe(200);
  });

  it("commits one signed delivery", async () => {
    const id = "evt_standalone_smoke_1";
    const answer = await postSigned(app.baseUrl, {
      id,
      type: "key.created",
      tenantId: "district-7001",
      keyId: "key_smoke_a",
      sequence: 1,
    });
    expect(answer).toEqual({ status: 200, body: { outcome: "applied" } });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const ledger = await client.query("SELECT outcome FROM processed_events WHERE event_id = $1", [id]);
      expect(ledger.rows).toEqual([{ outcome: "applied" }]);
      const keys = await client.query("SELECT id, status FROM api_keys WHERE tenant_id = 'district-7001'");
      expect(keys.rows).toEqual([{ id: "key_smoke_a", status: "active" }]);
    } finally {
      await client.end();
    }
  });

  it("answers the webhook path through Next's router, which ignores Next's internal request headers", async () => {
    // One path for every request (docs/decisions/0024-one-webhook-path.md): Next's request handler
    // strips the headers only its own layers may set, so a sender cannot pose as one of them.
    const internal = { "x-middleware-subrequest": "proxy:proxy:proxy:proxy:proxy", "x-matched-path": "/api/health" };
    for (const path of ["/api/webhooks/keys", "/api/webhooks/keys?via=query"]) {
      const get = await fetch(`${app.baseUrl}${path}`, { headers: internal });
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
      expect(get.headers.get("cache-control")).toBe("no-store");
      expect(get.headers.get("content-type")).toBe("application/json");
      expect(get.headers.get("x-powered-by")).toBeNull();
      // fetch accepts gzip; a webhook answer is sent plain (server/production-server.ts).
      if (path === "/api/webhooks/keys") expect(get.headers.get("content-encoding")).toBeNull();
      expect(await get.json()).toEqual({ error: "method GET not allowed; use POST" });
      const head = await fetch(`${app.baseUrl}${path}`, { method: "HEAD" });
      expect(head.status).toBe(405);
      expect(await head.text()).toBe("");
      const unsigned = await fetch(`${app.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...internal },
        body: "{}",
      });
      expect(unsigned.status).toBe(401);
    }
  });

  it("runs the worker from the same folder (node keyhook-worker.mjs), which stops on SIGTERM", async () => {
    const worker = spawn(process.execPath, ["keyhook-worker.mjs"], {
      cwd: artifact.dir,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: database.url,
        WEBHOOK_SECRETS: TEST_SECRET,
        NEXTAUTH_SECRET: "w".repeat(32),
        SECRETS_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
        AUDIT_SIGNING_KEY: TEST_AUDIT_SIGNING_KEY,
        NODE_ENV: "production",
        LOG_LEVEL: "info",
        PROVIDER_URL: "http://127.0.0.1:9",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => worker.once("exit", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: worker.stdout! }).on("line", (line) => {
        lines.push(line);
        if (line.includes('"worker started"')) resolve();
      });
      createInterface({ input: worker.stderr! }).on("line", (line) => lines.push(line));
      void exited.then((code) => reject(new Error(`worker exited ${code}:\n${lines.join("\n")}`)));
    });
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(lines.some((line) => line.includes('"worker stopped"'))).toBe(true);
  });

  it("stops cleanly on SIGTERM with exit code 0", async () => {
    app.child.kill("SIGTERM");
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(app.output).toContain("keyhook: stopped cleanly");
  });
});
