import Link from "next/link";
import { Suspense } from "react";
import { OutcomeBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState, FormErrors } from "@/components/ui/empty-state";
import { buttonClass, SelectField, TextField } from "@/components/ui/fields";
import { FilterActions, TimeRangeFields } from "@/components/ui/filter-controls";
import { KeysetPager } from "@/components/ui/keyset-pager";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import { tenantScope, type Actor } from "@/lib/core/auth/actor";
import { decodeCursor } from "@/lib/views/listing/keyset-cursor";
import {
  LEDGER_OUTCOMES,
  ledgerFiltersToQuery,
  parseLedgerFilters,
  type LedgerFilters,
} from "@/lib/views/ledger/ledger-filters";
import { listLedger } from "@/lib/views/ledger/list-ledger";
import { orNotFound } from "../../_lib/or-not-found";
import { requirePageActor } from "../../_lib/session";

export const metadata = { title: "Ledger · Keyhook" };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function LedgerPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requirePageActor("ledger.view");
  const params = await searchParams;
  const { filters, errors } = parseLedgerFilters(params);
  await orNotFound(() => tenantScope(actor, filters.tenantId));
  const cursorParam = typeof params.cursor === "string" ? params.cursor : undefined;
  const query = ledgerFiltersToQuery(filters).toString();
  return (
    <>
      <PageHeader
        title="Ledger"
        description="Every claimed event, newest first. Times are UTC."
        actions={
          <a className={buttonClass.secondary} href={`/ledger/export${query ? `?${query}` : ""}`} download>
            Export CSV
          </a>
        }
      />
      <Card className="mb-6">
        <form method="get" className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3" aria-label="Ledger filters">
          {actor.role === "district_admin" ? null : (
            <TextField label="District" name="tenant" defaultValue={filters.tenantId} placeholder="district-4417" />
          )}
          <TextField label="Type" name="type" defaultValue={filters.type} placeholder="key.revoked" />
          <SelectField
            label="Outcome"
            name="outcome"
            defaultValue={typeof params.outcome === "string" ? params.outcome : ""}
            options={[{ value: "", label: "Any" }, ...LEDGER_OUTCOMES.map((o) => ({ value: o, label: o }))]}
          />
          <TextField label="Event id" name="event" defaultValue={filters.eventId} placeholder="evt_…" />
          <TimeRangeFields
            from={filters.from ?? (typeof params.from === "string" ? params.from : undefined)}
            to={filters.to ?? (typeof params.to === "string" ? params.to : undefined)}
          />
          <FilterActions clearHref="/ledger" />
        </form>
      </Card>
      <FormErrors errors={errors} />
      {errors.length ? null : (
        <Suspense key={`${query}|${cursorParam ?? ""}`} fallback={<Skeleton label="Loading the ledger…" />}>
          <LedgerTable actor={actor} filters={filters} cursorParam={cursorParam} query={query} />
        </Suspense>
      )}
    </>
  );
}

async function LedgerTable({
  actor,
  filters,
  cursorParam,
  query,
}: {
  actor: Actor;
  filters: LedgerFilters;
  cursorParam?: string;
  query: string;
}) {
  const page = await listLedger({ actor, filters, cursor: decodeCursor(cursorParam) });
  if (page.rows.length === 0) {
    return (
      <EmptyState title="No events match">
        {query || cursorParam ? "Change or clear the filters." : "Events appear here as the provider delivers them."}
      </EmptyState>
    );
  }
  return (
    <Card>
      <Table label="Ledger" stack>
        <thead>
          <tr>
            <Th>Received</Th>
            <Th>District</Th>
            <Th>Event</Th>
            <Th>Type</Th>
            <Th>Key</Th>
            <Th>Seq</Th>
            <Th>Outcome</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {page.rows.map((row) => (
            <tr key={String(row.id)}>
              <Td className="whitespace-nowrap text-xs">{formatTime(row.receivedAt)}</Td>
              <Td label="District" className="whitespace-nowrap text-xs">
                {row.tenantId}
              </Td>
              <Td label="Event">
                <Link
                  className="font-mono text-xs underline max-md:break-all md:whitespace-nowrap"
                  href={`/ledger/${row.id}`}
                >
                  {row.eventId}
                </Link>
              </Td>
              <Td label="Type" className="text-xs">
                {row.type}
              </Td>
              <Td label="Key" className="font-mono text-xs">
                {row.keyId ?? "—"}
              </Td>
              <Td label="Seq" className="text-xs">
                {row.sequence === null ? "—" : String(row.sequence)}
              </Td>
              <Td label="Outcome">
                <OutcomeBadge outcome={row.outcome} />
                {row.reason ? <div className="mt-1 max-w-xs text-xs text-slate-500">{row.reason}</div> : null}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <KeysetPager basePath="/ledger" query={query} cursorParam={cursorParam} nextCursor={page.nextCursor} />
    </Card>
  );
}
