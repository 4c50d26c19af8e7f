import { Suspense } from "react";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState, FormErrors } from "@/components/ui/empty-state";
import { buttonClass, TextField } from "@/components/ui/fields";
import { FilterActions, TimeRangeFields } from "@/components/ui/filter-controls";
import { KeysetPager } from "@/components/ui/keyset-pager";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/auth/actor";
import { auditFiltersToQuery, parseAuditFilters, type AuditFilters } from "@/lib/audit/audit-filters";
import { listAudit } from "@/lib/audit/list-audit";
import { decodeCursor } from "@/lib/listing/keyset-cursor";
import { requirePageActor } from "../../_lib/session";

export const metadata = { title: "Audit log · Keyhook" };

export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requirePageActor("audit.view");
  const params = await searchParams;
  const { filters, errors } = parseAuditFilters(params);
  const query = auditFiltersToQuery(filters).toString();
  const cursorParam = typeof params.cursor === "string" ? params.cursor : undefined;
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every human action: who, when, what, and how it ended. Append-only. Times are UTC."
        actions={
          <a className={buttonClass.secondary} href={`/audit/export${query ? `?${query}` : ""}`} download>
            Export CSV
          </a>
        }
      />
      <Card className="mb-6">
        <form method="get" className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3" aria-label="Audit filters">
          <TextField label="Action" name="action" defaultValue={filters.action} placeholder="key.revoke" />
          <TextField label="Who" name="actor" defaultValue={filters.actor} placeholder="email" />
          <TextField
            label="Outcome"
            name="outcome"
            defaultValue={filters.outcome}
            placeholder="ok, denied, duplicate…"
          />
          <TextField label="District" name="tenant" defaultValue={filters.tenantId} />
          <TimeRangeFields
            from={filters.from ?? (typeof params.from === "string" ? params.from : undefined)}
            to={filters.to ?? (typeof params.to === "string" ? params.to : undefined)}
          />
          <FilterActions clearHref="/audit" />
        </form>
      </Card>
      <FormErrors errors={errors} />
      {errors.length ? null : (
        <Suspense key={`${query}|${cursorParam ?? ""}`} fallback={<Skeleton label="Loading the audit log…" />}>
          <AuditTable actor={actor} filters={filters} cursorParam={cursorParam} query={query} />
        </Suspense>
      )}
    </>
  );
}

async function AuditTable({
  actor,
  filters,
  cursorParam,
  query,
}: {
  actor: Actor;
  filters: AuditFilters;
  cursorParam?: string;
  query: string;
}) {
  const page = await listAudit({ actor, filters, cursor: decodeCursor(cursorParam) });
  if (page.rows.length === 0)
    return (
      <EmptyState title="No entries match">
        {query ? "Change or clear the filters." : "Actions appear here as people use the dashboard."}
      </EmptyState>
    );
  return (
    <Card>
      <Table label="Audit log" stack>
        <thead>
          <tr>
            <Th>When</Th>
            <Th>Who</Th>
            <Th>Action</Th>
            <Th>Target</Th>
            <Th>Outcome</Th>
            <Th>Details</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {page.rows.map((row) => (
            <tr key={String(row.id)}>
              <Td className="whitespace-nowrap text-xs">{formatTime(row.at)}</Td>
              <Td label="Who" className="break-words text-xs">
                {row.actor}
              </Td>
              <Td label="Action" className="text-xs">
                {row.action}
              </Td>
              <Td label="Target" className="break-all font-mono text-xs">
                {row.tenantId ? <div>{row.tenantId}</div> : null}
                {row.target}
              </Td>
              <Td label="Outcome">
                <Badge
                  tone={
                    row.outcome === "ok"
                      ? "green"
                      : row.outcome === "denied" || row.outcome === "failed"
                        ? "red"
                        : "slate"
                  }
                >
                  {row.outcome}
                </Badge>
              </Td>
              <Td label="Details" className="break-all font-mono text-xs text-slate-500 md:max-w-xs">
                {row.details ? JSON.stringify(row.details) : ""}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <KeysetPager basePath="/audit" query={query} cursorParam={cursorParam} nextCursor={page.nextCursor} />
    </Card>
  );
}
