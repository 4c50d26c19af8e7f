// GET /live: the change token open dashboard pages poll (components/live-refresh.tsx). Any
// replica answers the same for the same database, so it works behind a load balancer.
import { changeToken } from "@/lib/views/live/change-token";
import { machineRoute } from "../../_lib/machine-route";

export const dynamic = "force-dynamic";

export const GET = machineRoute("live", { permission: "overview.view" }, async (_request, actor) =>
  Response.json({ token: await changeToken({ actor }) }, { headers: { "cache-control": "no-store" } }),
);
