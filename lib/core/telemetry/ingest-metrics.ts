// Process-wide Prometheus instruments for the ingest path. Kept on globalThis so every route
// bundle Next loads in this process updates and exposes the same registry.
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

type Instruments = {
  registry: Registry;
  deliveries: Counter<"status" | "outcome">;
  ingestSeconds: Histogram<"outcome">;
  refusedReceipts: Counter<"kind" | "result">;
};

const globalForMetrics = globalThis as unknown as { keyhookMetrics?: Instruments };

function createInstruments(): Instruments {
  const registry = new Registry();
  // prom-client's default names already start with process_ / nodejs_: the prefix is the product's only.
  collectDefaultMetrics({ register: registry, prefix: "keyhook_" });
  return {
    registry,
    deliveries: new Counter({
      name: "keyhook_webhook_deliveries_total",
      help: "Webhook deliveries answered, by HTTP status and ingest outcome (rejected ones have outcome=none).",
      labelNames: ["status", "outcome"],
      registers: [registry],
    }),
    ingestSeconds: new Histogram({
      name: "keyhook_ingest_duration_seconds",
      help: "Time from request arrival to answer, for deliveries that reached the claim.",
      labelNames: ["outcome"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    refusedReceipts: new Counter({
      name: "keyhook_refused_request_receipts_total",
      help: "Webhook requests refused before a handler could read them (kind: client_error = the HTTP parser refused it, aborted_body = the body was cut off), by whether their receipt was recorded or skipped over REFUSED_RECEIPTS_PER_MINUTE.",
      labelNames: ["kind", "result"],
      registers: [registry],
    }),
  };
}

export function metrics(): Instruments {
  globalForMetrics.keyhookMetrics ??= createInstruments();
  return globalForMetrics.keyhookMetrics;
}

export function recordDelivery(options: { status: number; outcome: string | null; seconds?: number }): void {
  const instruments = metrics();
  instruments.deliveries.inc({ status: String(options.status), outcome: options.outcome ?? "none" });
  if (options.seconds !== undefined && options.outcome)
    instruments.ingestSeconds.observe({ outcome: options.outcome }, options.seconds);
}
