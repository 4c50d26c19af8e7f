import { checkHealth } from "@/lib/health/check-health";

// Public on purpose (load balancers); reveals no data, only up/down and migration state.
export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth();
  return Response.json(health, { status: health.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
