// Spans around the steps of a request. Through @opentelemetry/api only: with no SDK registered
// (OTEL_EXPORTER_OTLP_ENDPOINT unset, see instrumentation.ts) the tracer is the API's no-op one,
// so a span costs a function call and no allocation worth measuring.
import { SpanStatusCode, trace, type Span } from "@opentelemetry/api";

const tracer = trace.getTracer("keyhook");

/** Runs `work` inside a span named `name` (child of the active one); a throw marks it as an error. */
export function withSpan<T>(name: string, work: (span: Span) => Promise<T> | T): Promise<T> {
  return tracer.startActiveSpan(name, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
      throw error;
    } finally {
      span.end();
    }
  });
}
