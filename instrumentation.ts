// Next's instrumentation hook: runs once per server process before the first request.
// - Tracing is opt-in: without OTEL_EXPORTER_OTLP_ENDPOINT nothing is loaded (no SDK, no
//   exporter), and lib/core/telemetry/tracing.ts's spans are the API's no-ops.
// - The app's Prisma pools are closed by the production server after a SIGTERM drain
//   (server/serve.ts runs lib/core/shutdown-hooks.ts), not by Next.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("./lib/core/config/env");
  const { onShutdown } = await import("./lib/core/shutdown-hooks");
  const config = env();
  // The production server stores receipts of requests refused before Next saw them through this
  // bundle's Prisma client (http/webhook/refused-requests.ts).
  const { onRefusedRequest } = await import("./http/webhook/refused-requests");
  onRefusedRequest(async (receipt) => {
    const { recordReceipt } = await import("./lib/core/ingest/record-receipt");
    await recordReceipt(receipt);
  });
  onShutdown("database pools", async () => {
    const { disconnectDb } = await import("./lib/core/db/client");
    await disconnectDb();
  });
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT) {
    const { startTracing } = await import("./lib/core/telemetry/start-tracing");
    startTracing({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: config.OTEL_SERVICE_NAME });
  }
}
