import Link from "next/link";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/auth/actor";
import { listDistricts } from "@/lib/keys/list-districts";
import { requirePageActor } from "../../_lib/session";

export const metadata = { title: "Districts · Keyhook" };

export default async function DistrictsPage() {
  const actor = await requirePageActor("districts.view");
  // A district admin has exactly one district: a one-row list would only cost a click.
  if (actor.role === "district_admin" && actor.tenantId) redirect(`/districts/${encodeURIComponent(actor.tenantId)}`);
  return (
    <>
      <PageHeader title="Districts" description="Each district's keys and events." />
      <Suspense fallback={<Skeleton label="Loading districts…" />}>
        <DistrictList actor={actor} />
      </Suspense>
    </>
  );
}

async function DistrictList({ actor }: { actor: Actor }) {
  const districts = await listDistricts({ actor });
  if (districts.length === 0) return <EmptyState title="No districts yet">A district appears when its first key event arrives.</EmptyState>;
  return (
    <Card>
      <Table label="Districts">
        <thead>
          <tr>
            <Th>District</Th>
            <Th>Active keys</Th>
            <Th>Needs attention</Th>
            <Th>Last event</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {districts.map((d) => (
            <tr key={d.id}>
              <Td>
                <Link className="font-medium underline" href={`/districts/${encodeURIComponent(d.id)}`}>
                  {d.name ?? d.id}
                </Link>
                <div className="text-xs text-slate-500">{d.id}</div>
              </Td>
              <Td>{d.activeKeys}</Td>
              <Td className="space-x-1">
                {d.openAlerts ? <Badge tone="amber">{d.openAlerts} superseded</Badge> : null}
                {d.pendingRevokes ? <Badge tone="blue">{d.pendingRevokes} awaiting confirmation</Badge> : null}
                {!d.openAlerts && !d.pendingRevokes ? <span className="text-slate-400">—</span> : null}
              </Td>
              <Td className="whitespace-nowrap text-xs">{formatTime(d.lastEventAt)}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}
