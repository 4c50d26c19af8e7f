// The overview's link to the alert center, with the number of open alerts in the actor's scope.
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { formatNumber } from "@/components/ui/format";
import { countOpenAlerts } from "@/lib/views/alerts/list-alerts";
import type { Actor } from "@/lib/core/auth/actor";
import { can } from "@/lib/core/auth/permissions";

export async function OpenAlertsLine({ actor }: { actor: Actor }) {
  if (!can(actor, "alerts.view")) return null;
  const open = await countOpenAlerts({ actor });
  return (
    <div
      className="flex flex-wrap items-center gap-2 rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-sm"
      data-testid="open-alerts-line"
    >
      <span className="font-medium text-slate-700">Alerts:</span>
      {open === 0 ? (
        <Badge tone="green">nothing open</Badge>
      ) : (
        <Badge tone="red">
          {formatNumber(open)} open alert{open === 1 ? "" : "s"}
        </Badge>
      )}
      <Link className="ml-auto text-sm underline" href="/alerts?state=open">
        {open === 0 ? "Alert center" : "See what needs a human"}
      </Link>
    </div>
  );
}
