// The overview's last few events, newest first: where a newcomer lands after sign-in, the
// provider's changes show up as they arrive (the page refreshes itself, components/live-refresh.tsx).
import Link from "next/link";
import { OutcomeBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { formatTime } from "@/components/ui/format";
import type { Actor } from "@/lib/core/auth/actor";
import { can } from "@/lib/core/auth/permissions";
import { listLedger } from "@/lib/views/ledger/list-ledger";

const LATEST = 5;

export async function LatestEvents({ actor }: { actor: Actor }) {
  if (!can(actor, "ledger.view")) return null;
  const { rows } = await listLedger({ actor, filters: {}, limit: LATEST });
  return (
    <Card title="Latest events">
      {rows.length === 0 ? (
        <p className="text-sm text-slate-600">None yet: events appear here as the provider delivers them.</p>
      ) : (
        <ul className="divide-y divide-slate-100 text-sm" data-testid="latest-events">
          {rows.map((row) => (
            <li key={String(row.id)} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
              <OutcomeBadge outcome={row.outcome} />
              <Link className="break-all font-mono text-xs underline" href={`/ledger/${row.id}`}>
                {row.eventId}
              </Link>
              <span className="text-xs text-slate-600">
                {row.type} · {row.tenantId}
              </span>
              <span className="ml-auto whitespace-nowrap text-xs text-slate-500">{formatTime(row.receivedAt)}</span>
            </li>
          ))}
        </ul>
      )}
      <Link className="mt-3 inline-block text-sm underline" href="/ledger">
        The whole ledger
      </Link>
    </Card>
  );
}
