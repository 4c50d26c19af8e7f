import { Suspense } from "react";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState, FormErrors, Notice } from "@/components/ui/empty-state";
import { buttonClass, SelectField, TextField } from "@/components/ui/fields";
import { FilterActions, TimeRangeFields } from "@/components/ui/filter-controls";
import { KeysetPager } from "@/components/ui/keyset-pager";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/core/auth/actor";
import { auditFiltersToQuery, parseAuditFilters, type AuditFilters } from "@/lib/views/audit/audit-filters";
import { listAudit } from "@/lib/views/audit/list-audit";
import { getAuditChainStatus } from "@/lib/views/audit/audit-chain-status";
import {
  AUDIT_ACTION_GROUPS,
  AUDIT_OUTCOME_GROUPS,
  auditActionWords,
  auditOutcomeWords,
  DEFAULT_AUDIT_ACTIONS,
  isAuditActionGroup,
  isAuditOutcomeGroup,
} from "@/lib/core/audit/audit-words";
import { decodeCursor } from "@/lib/views/listing/keyset-cursor";
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
        description="Every human action: who, when, what, and how it ended (a provider call: requested, then the provider's answer). Append-only and hash-chained. Times are UTC."
        actions={
          <div className="flex flex-wrap gap-2">
            <a className={buttonClass.secondary} href={`/audit/export${query ? `?${query}` : ""}`} download>
              Export CSV
            </a>
            <a className={buttonClass.secondary} href="/audit/export-chain" download>
              Export for verification (JSON lines)
            </a>
            <a className={buttonClass.secondary} href="/audit/export-checkpoints" download>
              Checkpoints
            </a>
          </div>
        }
      />
      <Suspense fallback={null}>
        <ChainStatus actor={actor} />
      </Suspense>
      <Card className="mb-6">
        <form method="get" className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3" aria-label="Audit filters">
          <SelectField
            label="What"
            name="action"
            defaultValue={filters.action ?? DEFAULT_AUDIT_ACTIONS}
            options={[
              ...Object.entries(AUDIT_ACTION_GROUPS).map(([value, group]) => ({ value, label: group.label })),
              // One action by its name (a link from elsewhere, an older bookmark), in words.
              ...(filters.action && !isAuditActionGroup(filters.action)
                ? [{ value: filters.action, label: `Only: ${auditActionWords(filters.action)}` }]
                : []),
            ]}
          />
          <TextField label="Who" name="actor" defaultValue={filters.actor} placeholder="email" />
          <SelectField
            label="Outcome"
            name="outcome"
            defaultValue={filters.outcome ?? ""}
            options={[
              { value: "", label: "Any outcome" },
              ...Object.entries(AUDIT_OUTCOME_GROUPS).map(([value, group]) => ({ value, label: group.label })),
              ...(filters.outcome && !isAuditOutcomeGroup(filters.outcome)
                ? [{ value: filters.outcome, label: `Only: ${auditOutcomeWords(filters.outcome)}` }]
                : []),
            ]}
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

async function ChainStatus({ actor }: { actor: Actor }) {
  const { verification, newestCheckpoint } = await getAuditChainStatus({ actor });
  const checkpoint = newestCheckpoint
    ? `Newest signed checkpoint: ${newestCheckpoint.id} at seq ${newestCheckpoint.seq}, ${formatTime(newestCheckpoint.at)}.`
    : "No checkpoint signed yet.";
  const how = (
    <>
      Check it yourself, without the database: download both files, then run{" "}
      <code className="break-words">
        npm run audit:verify -- keyhook-audit-chain-….jsonl --checkpoints keyhook-audit-checkpoints-….jsonl --public-key
        &lt;key&gt;
      </code>{" "}
      with the key from{" "}
      <a className="underline" href="/api/audit/public-key">
        /api/audit/public-key
      </a>
      .
    </>
  );
  if (!verification)
    return (
      <Notice tone="info">
        <strong>Not verified yet:</strong> the nightly check has not run. {checkpoint} {how}
      </Notice>
    );
  const { verdict } = verification;
  if (!verdict.ok)
    return (
      <Notice tone="error">
        <strong>
          The audit log does not verify ({verdict.kind.replaceAll("_", " ")}
          {verdict.seq ? ` at seq ${verdict.seq}` : ""}):
        </strong>{" "}
        {verdict.message}. Checked {formatTime(new Date(verification.at))}
        {verdict.verifiedUpTo ? `; intact up to seq ${verdict.verifiedUpTo.seq}` : ""}. {checkpoint}
      </Notice>
    );
  return (
    <Notice tone="success">
      <strong>
        Verified up to seq {verdict.last?.seq ?? "0"}
        {verdict.last ? ` (${formatTime(new Date(verdict.last.at))})` : ""}
      </strong>
      : {verdict.entries} entr{verdict.entries === 1 ? "y" : "ies"} checked {formatTime(new Date(verification.at))}
      {verdict.checkpoint ? ` against checkpoint ${verdict.checkpoint.id}` : ""}. {checkpoint} {how}
    </Notice>
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
                <div>{auditActionWords(row.action)}</div>
                <div className="font-mono text-slate-500">{row.action}</div>
              </Td>
              <Td label="Target" className="break-all font-mono text-xs">
                {row.tenantId ? <div>{row.tenantId}</div> : null}
                {row.target}
              </Td>
              <Td label="Outcome">
                <Badge
                  tone={
                    row.outcome === "ok" || row.outcome === "accepted"
                      ? "green"
                      : row.outcome === "denied" || row.outcome === "failed" || row.outcome === "refused"
                        ? "red"
                        : "slate"
                  }
                >
                  {auditOutcomeWords(row.outcome)}
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
