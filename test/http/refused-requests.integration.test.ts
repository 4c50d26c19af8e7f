// Requests to the webhook path that Node's HTTP parser refuses (they never reach a handler) and
// bodies cut off mid-way (the handler's body read fails) are answered 4xx with a receipt, like
// every delivery; their receipts are rate-limited by REFUSED_RECEIPTS_PER_MINUTE and counted in
// /api/metrics. The server here is the production server's http.Server treatment
// (server/harden-server.ts) around the route's handler, over real sockets.
import { createServer, type Server } from "node:http";
import net from "node:net";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as scrapeMetrics } from "@/app/api/metrics/route";
import { prisma } from "@/lib/core/db/client";
import { resetEnvForTests } from "@/lib/core/config/env";
import { handleKeyWebhook } from "@/http/webhook/receive-key-webhook";
import { recordReceipt } from "@/lib/core/ingest/record-receipt";
import { onRefusedRequest, resetRefusedReceiptsForTests } from "@/http/webhook/refused-requests";
import { hardenServer } from "@/server/harden-server";
import { resetDatabase } from "../support/state";
import { signedRequest } from "../support/webhooks";

const METRICS_TOKEN = "metrics-token-for-refusals-01";
let server: Server;
let port = 0;

beforeAll(async () => {
  process.env.METRICS_TOKEN = METRICS_TOKEN;
  resetEnvForTests();
  onRefusedRequest(recordReceipt); // what instrumentation.ts registers inside Next
  server = createServer((req, res) => {
    const body = req.method === "GET" ? undefined : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body,
      duplex: "half",
    } as RequestInit);
    handleKeyWebhook(request)
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch(() => res.writeHead(500).end());
  });
  hardenServer(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  delete process.env.METRICS_TOKEN;
  delete process.env.REFUSED_RECEIPTS_PER_MINUTE;
  resetEnvForTests();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(async () => {
  await resetDatabase();
  resetRefusedReceiptsForTests();
});
afterEach(() => {
  delete process.env.REFUSED_RECEIPTS_PER_MINUTE;
  resetEnvForTests();
});

/** Writes raw bytes on a new connection; resolves with everything the server answered. */
function raw(bytes: string, options: { hangUp?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", (error) => (options.hangUp ? resolve("") : reject(error)));
    socket.write(bytes, () => {
      if (options.hangUp) setTimeout(() => socket.destroy(), 50);
    });
  });
}

const receipts = () =>
  prisma.receipt.findMany({ orderBy: { id: "asc" }, select: { status: true, error: true, webhookId: true } });

async function waitForReceipts(count: number) {
  for (let i = 0; i < 200; i++) {
    const rows = await receipts();
    if (rows.length >= count) return rows;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return receipts();
}

const badContentLength = (path = "/api/webhooks/keys", id = "evt_refused_1") =>
  `POST ${path} HTTP/1.1\r\nHost: keyhook.test\r\nwebhook-id: ${id}\r\ncontent-length: 12abc\r\n\r\n{}`;

async function metricsText(): Promise<string> {
  return (
    await scrapeMetrics(
      new Request("http://keyhook.test/api/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }),
    )
  ).text();
}

describe("requests refused before a handler", () => {
  it("a bad Content-Length on the webhook path: 400 with the reason, and a receipt naming the delivery", async () => {
    const answer = await raw(badContentLength());
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain("x-content-type-options: nosniff");
    expect(answer.split("\r\n\r\n")[1]).toBe('{"error":"Invalid character in Content-Length"}');
    expect(await waitForReceipts(1)).toEqual([
      {
        status: 400,
        error: "refused by the HTTP parser: Invalid character in Content-Length",
        webhookId: "evt_refused_1",
      },
    ]);
  });

  it("oversized headers: 431 and a receipt; Content-Length with Transfer-Encoding: 400 and a receipt", async () => {
    const big = `POST /api/webhooks/keys HTTP/1.1\r\nHost: keyhook.test\r\nx-padding: ${"a".repeat(20_000)}\r\ncontent-length: 2\r\n\r\n{}`;
    expect(await raw(big)).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    const both = `POST /api/webhooks/keys HTTP/1.1\r\nHost: keyhook.test\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n`;
    expect(await raw(both)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    // Each receipt is written after its answer: the two may commit in either order.
    const rows = await waitForReceipts(2);
    expect(rows.map((r) => [r.status, r.error]).sort()).toEqual([
      [400, "refused by the HTTP parser: Transfer-Encoding can't be present with Content-Length"],
      [431, "refused by the HTTP parser: the request headers are too large"],
    ]);
  });

  it("another path gets the same answer and no receipt", async () => {
    expect(await raw(badContentLength("/overview"))).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(await raw(badContentLength("/api/webhooks/keys/"))).toMatch(/^HTTP\/1\.1 400 /);
    expect((await waitForReceipts(1)).map((r) => r.webhookId)).toEqual(["evt_refused_1"]);
  });

  it("a body cut off mid-way: a 400 receipt, not a 500", async () => {
    const signed = signedRequest({ id: "evt_cut_1", type: "key.created" }, { webhookId: "evt_cut_1" });
    const head = [...signed.headers].map(([name, value]) => `${name}: ${value}\r\n`).join("");
    await raw(
      `POST /api/webhooks/keys HTTP/1.1\r\nHost: keyhook.test\r\n${head}content-length: 500\r\n\r\n{"id":"evt_cu`,
      {
        hangUp: true,
      },
    );
    expect(await waitForReceipts(1)).toEqual([
      { status: 400, error: "the body ended after 13 bytes, before the request did", webhookId: "evt_cut_1" },
    ]);
  });

  it("receipts stop at REFUSED_RECEIPTS_PER_MINUTE; every refusal is still answered and counted", async () => {
    process.env.REFUSED_RECEIPTS_PER_MINUTE = "3";
    resetEnvForTests();
    resetRefusedReceiptsForTests();
    const before = await metricsText();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => raw(badContentLength(undefined, `evt_flood_${i}`))),
    );
    expect(answers.every((a) => a.startsWith("HTTP/1.1 400 "))).toBe(true);
    await waitForReceipts(3);
    // A moment for any receipt beyond the limit that would (wrongly) still be on its way.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await prisma.receipt.count()).toBe(3);
    const count = (text: string, result: string) =>
      Number(
        new RegExp(`keyhook_refused_request_receipts_total\\{kind="client_error",result="${result}"\\} (\\d+)`).exec(
          text,
        )?.[1] ?? 0,
      );
    const after = await metricsText();
    expect(count(after, "recorded") - count(before, "recorded")).toBe(3);
    expect(count(after, "rate_limited") - count(before, "rate_limited")).toBe(5);
  });
});
