import { checkLiveness } from "@/lib/operations/health/check-health";

// Liveness, public on purpose (load balancers, orchestrators): the process answers. It does not
// touch the database, so a database outage never gets healthy replicas restarted; readiness is
// GET /api/health/ready.
export const dynamic = "force-dynamic";

export async function GET() {
  return Response.json(checkLiveness(), { headers: { "cache-control": "no-store" } });
}
