import "server-only";
// OpenTelemetry for the app process, loaded by instrumentation.ts only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set. Registers a global tracer provider: Next's own spans (one
// per request, route and render) and ours (lib/core/telemetry/tracing.ts: ingest.verify, ingest.claim_and_apply,
// ingest.receipt) are exported in batches over OTLP/HTTP (JSON) to <endpoint>/v1/traces.
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { onShutdown } from "../shutdown-hooks";

export function startTracing(options: { endpoint: string; serviceName: string }): void {
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, "")}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1_000 })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(provider);
  // Spans still in the batch are sent before the process exits.
  onShutdown("opentelemetry", () => provider.shutdown());
}
