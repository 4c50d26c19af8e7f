// Runs the deployable artifact the way the Dockerfile does: a copy of .next/standalone in a
// temporary directory outside the checkout (so no node_modules of the checkout can be found on
// any parent path), started with `node keyhook-start.mjs` and a production environment.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { inject } from "vitest";
import { TEST_AUDIT_SIGNING_KEY, TEST_ENCRYPTION_KEYS } from "../support/encryption-keys";
import { TEST_SECRET } from "../support/webhooks";
import { SERVER_NODE_OPTIONS } from "../../server/server-node-options";
import { buildKeyEvent, signDelivery, type KeyEventInput } from "@/lib/operations/provider/signed-delivery";

export const ARTIFACT = path.resolve(".next/standalone");

/** Base of this suite's fixed ports (each file adds its own offset); overridable like the others. */
export const DEPLOY_PORT = Number(process.env.DEPLOY_TEST_PORT ?? 4590);

export function copyArtifact(): { dir: string; remove(): void } {
  if (!existsSync(path.join(ARTIFACT, "keyhook-start.mjs"))) {
    throw new Error("no standalone artifact: run `npm run build` first (npm run test:deploy does)");
  }
  const dir = mkdtempSync(path.join(tmpdir(), "keyhook-standalone-"));
  cpSync(ARTIFACT, dir, { recursive: true, verbatimSymlinks: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every directory from `dir` up to / that holds a node_modules folder. */
export function nodeModulesAbove(dir: string): string[] {
  const found: string[] = [];
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    if (existsSync(path.join(current, "node_modules"))) found.push(current);
    if (current === path.dirname(current)) return found;
  }
}

/** A new, empty database on the test server: the artifact must migrate it itself. */
export async function createEmptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = inject("postgresAdminUrl");
  const name = `keyhook_deploy_${randomBytes(5).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export type RunningArtifact = {
  child: ChildProcess;
  baseUrl: string;
  output: string[];
  /** Resolves with the first stdout/stderr line matching `pattern`. */
  waitForLine(pattern: RegExp): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
};

export async function startArtifact(options: {
  dir: string;
  databaseUrl: string;
  port: number;
  env?: Record<string, string>;
}): Promise<RunningArtifact> {
  // Only what a container would be given: no NODE_PATH, nothing of the runner's; NODE_OPTIONS as
  // the image sets it (the Dockerfile's ENV, server/server-node-options.ts).
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: "production",
    NODE_OPTIONS: SERVER_NODE_OPTIONS,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: options.dir,
    DATABASE_URL: options.databaseUrl,
    PORT: String(options.port),
    LISTEN_HOST: "127.0.0.1",
    WEBHOOK_SECRETS: TEST_SECRET,
    NEXTAUTH_SECRET: randomBytes(24).toString("hex"),
    SECRETS_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
    AUDIT_SIGNING_KEY: TEST_AUDIT_SIGNING_KEY,
    NEXTAUTH_URL: `http://127.0.0.1:${options.port}`,
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    ...options.env,
  };
  const child = spawn(process.execPath, ["keyhook-start.mjs"], {
    cwd: options.dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A runner that dies (or times out) must not leave the server holding its port.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  const output: string[] = [];
  const watchers = new Set<{ pattern: RegExp; resolve: (line: string) => void }>();
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      output.push(line);
      for (const watcher of watchers) {
        if (watcher.pattern.test(line)) {
          watchers.delete(watcher);
          watcher.resolve(line);
        }
      }
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const waitForLine = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const seen = output.find((line) => pattern.test(line));
      if (seen) return resolve(seen);
      watchers.add({ pattern, resolve });
      void exited.then(({ code, signal }) =>
        reject(new Error(`artifact exited (code ${code}, signal ${signal}) before ${pattern}:\n${output.join("\n")}`)),
      );
    });
  const baseUrl = `http://127.0.0.1:${options.port}`;
  await waitForLine(/keyhook: serving on /);
  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { child, baseUrl, output, waitForLine, exited, kill };
}

export type Delivered = { status: number; body: Record<string, unknown> };

/** POSTs one signed delivery of `input` as the provider would. */
export async function postSigned(
  baseUrl: string,
  input: KeyEventInput & { id: string },
  options: { newConnection?: boolean } = {},
): Promise<Delivered> {
  const event = buildKeyEvent(input);
  const signed = signDelivery({ body: JSON.stringify(event), webhookId: input.id, secrets: [TEST_SECRET] });
  const url = `${baseUrl}/api/webhooks/keys`;
  if (options.newConnection) return postOnNewConnection(url, signed.headers, signed.body);
  const response = await fetch(url, { method: "POST", headers: signed.headers, body: signed.body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * One request on a connection of its own, closed after the answer. fetch keeps connections alive
 * and reuses them, and a cluster primary hands out connections, not requests: a test that must
 * reach a process started later (WEB_CONCURRENCY's replacement) needs new connections, or every
 * request can keep landing on the processes its pooled sockets already belong to.
 */
function postOnNewConnection(url: string, headers: Record<string, string>, body: string): Promise<Delivered> {
  return new Promise((resolve, reject) => {
    const sized = { ...headers, "content-length": String(Buffer.byteLength(body)) };
    const request = http.request(url, { method: "POST", headers: sized, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        try {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        } catch (error) {
          reject(error);
        }
      });
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}
