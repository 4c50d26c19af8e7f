// Optional tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, the standalone server exports
// OpenTelemetry spans over OTLP/HTTP (JSON). A receiver started here collects them: one signed
// delivery gives ingest.verify and ingest.claim_and_apply, a rejected one ingest.receipt, and a
// dashboard page Next's own request span. Spans still batched are flushed at SIGTERM.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  copyArtifact,
  createEmptyDatabase,
  DEPLOY_PORT,
  postSigned,
  startArtifact,
  type RunningArtifact,
} from "./standalone-app";

type OtlpSpan = {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: { key: string; value: { stringValue?: string } }[];
};
type OtlpExport = {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
};

describe("OpenTelemetry export", () => {
  let artifact: ReturnType<typeof copyArtifact>;
  let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
  let receiver: Server;
  const exports: OtlpExport[] = [];
  let app: RunningArtifact;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        if (req.url === "/v1/traces") exports.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    artifact = copyArtifact();
    database = await createEmptyDatabase();
    app = await startArtifact({
      dir: artifact.dir,
      databaseUrl: database.url,
      port: DEPLOY_PORT + 2,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: "keyhook-test" },
    });
  });

  afterAll(async () => {
    await app?.kill();
    await new Promise((resolve) => receiver?.close(resolve));
    await database?.drop();
    artifact?.remove();
  });

  it("exports the ingest steps and the dashboard request", async () => {
    const applied = await postSigned(app.baseUrl, {
      id: "evt_traced_1",
      type: "key.created",
      tenantId: "district-7002",
      keyId: "key_traced_a",
      sequence: 1,
    });
    expect(applied.status).toBe(200);
    const unsigned = await fetch(`${app.baseUrl}/api/webhooks/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(unsigned.status).toBe(401);
    expect((await fetch(`${app.baseUrl}/signin`)).status).toBe(200);

    app.child.kill("SIGTERM"); // flushes the batch before the process exits
    expect(await app.exited).toEqual({ code: 0, signal: null });

    const spans = exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    const names = spans.map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining(["ingest.verify", "ingest.claim_and_apply", "ingest.receipt"]));
    expect(names).toEqual(expect.arrayContaining(["POST /api/webhooks/keys", "GET /signin"]));
    // Our spans are children of Next's request span (one trace per request).
    const claim = spans.find((span) => span.name === "ingest.claim_and_apply")!;
    expect(claim.parentSpanId).toBeTruthy();
    expect(spans.some((span) => span.spanId === claim.parentSpanId)).toBe(true);
    expect(claim.attributes).toEqual(
      expect.arrayContaining([{ key: "keyhook.outcome", value: { stringValue: "applied" } }]),
    );
    const service = exports[0]!.resourceSpans[0]!.resource?.attributes?.find((a) => a.key === "service.name");
    expect(service?.value.stringValue).toBe("keyhook-test");
    console.log(`tracing: ${spans.length} spans received: ${[...new Set(names)].sort().join(", ")}`);
  });
});
