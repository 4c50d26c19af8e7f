import { checkReadiness } from "@/lib/operations/health/check-health";

// Readiness, public on purpose (load balancers): states only, never error text, host or port
// (the reason is in the log).
export const dynamic = "force-dynamic";

export async function GET() {
  const readiness = await checkReadiness();
  return Response.json(readiness, { status: readiness.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
