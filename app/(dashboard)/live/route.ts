// GET /live: the change token open dashboard pages poll (components/live-refresh.tsx). Any
// replica answers the same for the same database, so it works behind a load balancer.
import { changeToken } from "@/lib/live/change-token";
import { requireRouteActor } from "../../_lib/session";

export const dynamic = "force-dynamic";

export async function GET() {
  const actor = await requireRouteActor("overview.view");
  if (actor instanceof Response) return actor;
  return Response.json({ token: await changeToken({ actor }) }, { headers: { "cache-control": "no-store" } });
}
