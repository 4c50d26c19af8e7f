import Link from "next/link";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { FilterActions } from "@/components/ui/filter-controls";
import { TextField } from "@/components/ui/fields";
import { KeysetPager } from "@/components/ui/keyset-pager";
import { EmptyState, FormErrors } from "@/components/ui/empty-state";
import { formatTime, plural } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/core/auth/actor";
import { parseDistrictSearch } from "@/lib/views/districts/district-filters";
import { listDistrictsPage, type DistrictSummary } from "@/lib/views/districts/list-districts";
import { requirePageActor } from "../../_lib/session";

export const metadata = { title: "Districts · Keyhook" };

export default async function DistrictsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requirePageActor("districts.view");
  // A district admin has exactly one district: a one-row list would only cost a click.
  if (actor.role === "district_admin" && actor.tenantId) redirect(`/districts/${encodeURIComponent(actor.tenantId)}`);
  const params = await searchParams;
  const { search, errors } = parseDistrictSearch(params);
  const after = typeof params.cursor === "string" ? params.cursor : undefined;
  return (
    <>
      <PageHeader title="Districts" description="Each district's keys and events." />
      <Card className="mb-6">
        <form method="get" className="grid grid-cols-1 gap-3 sm:grid-cols-2" aria-label="Search districts">
          <TextField label="Search" name="q" defaultValue={search} placeholder="district id or name" />
          <FilterActions clearHref="/districts" submitLabel="Search" />
        </form>
      </Card>
      <FormErrors errors={errors} />
      {errors.length ? null : (
        <Suspense key={`${search}|${after ?? ""}`} fallback={<Skeleton label="Loading districts…" />}>
          <DistrictList actor={actor} search={search} after={after} />
        </Suspense>
      )}
    </>
  );
}

async function DistrictList({ actor, search, after }: { actor: Actor; search: string; after?: string }) {
  const { rows: districts, nextAfter } = await listDistrictsPage({ actor, search, after });
  if (districts.length === 0) {
    return search || after ? (
      <EmptyState title="No districts match">Change or clear the search.</EmptyState>
    ) : (
      <EmptyState title="No districts yet">A district appears when its first key event arrives.</EmptyState>
    );
  }
  const query = search ? new URLSearchParams({ q: search }).toString() : "";
  return (
    <>
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
                <Td>
                  <NeedsAttention district={d} />
                </Td>
                <Td className="whitespace-nowrap text-xs">{formatTime(d.lastEventAt)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      </Card>
      <KeysetPager basePath="/districts" query={query} cursorParam={after} nextCursor={nextAfter} />
    </>
  );
}

/** Every reason a human should open the district, or a dash. */
function NeedsAttention({ district: d }: { district: DistrictSummary }) {
  const items = [
    d.supersededKeys ? <Badge tone="amber">{plural(d.supersededKeys, "superseded key")}</Badge> : null,
    d.pendingRevokes ? <Badge tone="blue">{d.pendingRevokes} awaiting confirmation</Badge> : null,
    d.quarantined ? <Badge tone="amber">{d.quarantined} in quarantine</Badge> : null,
    d.missingEvents ? <Badge tone="red">{plural(d.missingEvents, "missing event")}</Badge> : null,
    d.drift ? <Badge tone="red">{plural(d.drift, "drift alert")}</Badge> : null,
  ].filter((item) => item !== null);
  if (items.length === 0) return <span className="text-slate-400">—</span>;
  return (
    <div className="flex flex-wrap gap-1" data-testid="needs-attention">
      {items.map((item, i) => (
        <span key={i}>{item}</span>
      ))}
    </div>
  );
}
