import { Suspense } from "react";
import { ActionForm } from "@/components/action-form";
import { Badge } from "@/components/ui/badge";
import { Card, Stat } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { TextField } from "@/components/ui/fields";
import { formatBytes, formatNumber, formatTime, plural } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/core/auth/actor";
import { can } from "@/lib/core/auth/permissions";
import { getRetentionView } from "@/lib/views/retention/retention-view";
import { requirePageActor } from "../../_lib/session";
import { saveRetentionAction } from "./actions";

export const metadata = { title: "Retention · Keyhook" };

export default async function RetentionPage() {
  const actor = await requirePageActor("retention.view");
  return (
    <>
      <PageHeader
        title="Retention"
        description="How long claims are kept so a late retry is still recognised, and what the purge does."
      />
      <Suspense fallback={<Skeleton label="Loading retention…" />}>
        <RetentionDetails actor={actor} />
      </Suspense>
    </>
  );
}

type RetentionView = Awaited<ReturnType<typeof getRetentionView>>;

async function RetentionDetails({ actor }: { actor: Actor }) {
  const { settings, stats, runs, tables } = await getRetentionView({ actor });
  return (
    <div className="space-y-6">
      <RetentionFigures settings={settings} stats={stats} />
      {can(actor, "retention.edit") ? <RetentionSettingsCard settings={settings} /> : null}
      <BoundedTablesCard tables={tables} />
      <PurgeRunsCard runs={runs} />
    </div>
  );
}

function RetentionFigures({ settings, stats }: Pick<RetentionView, "settings" | "stats">) {
  const windowHours = settings.retentionDays * 24;
  return (
    <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
      <Stat
        label="Retention window"
        value={plural(settings.retentionDays, "day")}
        hint={`${formatNumber(windowHours)} h; payloads ${plural(settings.payloadRetentionDays, "day")}`}
      />
      <Stat
        label="Provider retry horizon"
        value={`${settings.retryHorizonHours} h`}
        hint={`+ ${settings.marginHours} h margin must stay below the window`}
      />
      <Stat label="Oldest claim" value={<span className="text-base">{formatTime(stats.oldestClaimAt)}</span>} />
      <Stat label="Expiring in 24 h" value={formatNumber(stats.expiringNext24h)} />
      <Stat label="Claims" value={formatNumber(stats.claimRows)} hint={formatBytes(stats.claimBytes)} />
      <Stat label="Receipts" value={formatNumber(stats.receiptRows)} hint={formatBytes(stats.receiptBytes)} />
      <Stat label="Awaiting purge" value={formatNumber(stats.expiredAwaitingPurge)} />
      <Stat
        label="Last purge"
        value={<span className="text-base">{stats.lastRun ? formatTime(stats.lastRun.startedAt) : "never"}</span>}
        hint={stats.lastRun?.status}
      />
    </div>
  );
}

function RetentionSettingsCard({ settings }: Pick<RetentionView, "settings">) {
  return (
    <Card title="Settings">
      <ActionForm action={saveRetentionAction} submitLabel="Save settings" className="max-w-3xl">
        <div className="grid gap-3 sm:grid-cols-3">
          <TextField
            label="Retention (days)"
            name="retentionDays"
            type="number"
            defaultValue={String(settings.retentionDays)}
            required
          />
          <TextField
            label="Provider retry horizon (h)"
            name="retryHorizonHours"
            type="number"
            defaultValue={String(settings.retryHorizonHours)}
            required
            hint={`At least ${settings.horizonFloor.hours} h (${settings.horizonFloor.bound === "configured" ? "PROVIDER_RETRY_HORIZON_HOURS" : "the provider's longest retry"})`}
          />
          <TextField
            label="Payload retention (days)"
            name="payloadRetentionDays"
            type="number"
            defaultValue={String(settings.payloadRetentionDays)}
          />
        </div>
        <p className="text-xs text-slate-500">
          The retry horizon can be declared longer than the provider&apos;s, never shorter: at least{" "}
          {settings.horizonFloor.hours} h, as {settings.horizonFloor.explanation}. The window must stay longer than the
          horizon + {settings.marginHours} h margin.
        </p>
      </ActionForm>
    </Card>
  );
}

function BoundedTablesCard({ tables }: Pick<RetentionView, "tables">) {
  return (
    <Card title="Every table that grows">
      <p className="mb-3 text-sm text-slate-600">
        The nightly purge deletes past each window; what still needs a human (failed outbox rows, open alerts and gaps,
        an unresolved quarantine) is never purged. Rows are PostgreSQL&apos;s estimate.
      </p>
      <Table label="Bounded tables" stack>
        <thead>
          <tr>
            <Th>Table</Th>
            <Th>What goes</Th>
            <Th>Window</Th>
            <Th>Rows</Th>
            <Th>Size</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {tables.map((table) => (
            <tr key={table.table}>
              <Td className="font-mono text-xs [overflow-wrap:anywhere]">{table.table}</Td>
              <Td className="text-xs" label="What goes">
                {table.what}
              </Td>
              {/* Setting names are one long word each: they break where they must on a phone. */}
              <Td className="text-xs [overflow-wrap:anywhere]" label="Window">
                {table.bound}
              </Td>
              <Td className="whitespace-nowrap text-xs" label="Rows">
                {table.rowsEstimate === null ? "—" : `≈ ${formatNumber(table.rowsEstimate)}`}
              </Td>
              <Td className="whitespace-nowrap text-xs" label="Size">
                {formatBytes(table.bytes)}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

function PurgeRunsCard({ runs }: Pick<RetentionView, "runs">) {
  return (
    <Card title="Purge runs">
      {runs.length === 0 ? (
        <EmptyState title="No purge has run yet" />
      ) : (
        <Table label="Purge runs" stack>
          <thead>
            <tr>
              <Th>Started</Th>
              <Th>Trigger</Th>
              <Th>Status</Th>
              <Th>Claims</Th>
              <Th>Receipts</Th>
              <Th>Payloads</Th>
              <Th>Duration</Th>
              <Th>Other rows</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {runs.map((run) => (
              <PurgeRunRow key={run.id} run={run} />
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

function PurgeRunRow({ run }: { run: RetentionView["runs"][number] }) {
  return (
    <tr>
      <Td className="whitespace-nowrap text-xs">{formatTime(run.startedAt)}</Td>
      <Td className="text-xs" label="Trigger">
        {run.trigger}
      </Td>
      <Td label="Status">
        <Badge tone={run.status === "ran" ? "green" : run.status === "failed" ? "red" : "slate"}>{run.status}</Badge>
        {run.error ? <div className="text-xs text-rose-700">{run.error}</div> : null}
      </Td>
      <Td label="Claims">{formatNumber(run.claimsDeleted)}</Td>
      <Td label="Receipts">{formatNumber(run.receiptsDeleted)}</Td>
      <Td label="Payloads">{formatNumber(run.payloadsCleared)}</Td>
      <Td className="text-xs" label="Duration">
        {formatNumber(run.durationMs)} ms
      </Td>
      <Td className="text-xs" label="Other rows">
        {otherRows(run.rowsDeleted)}
      </Td>
    </tr>
  );
}

/** "1,204 (audit_log 1,200, outbox 4)": what a run deleted beyond claims, receipts and payloads. */
function otherRows(rowsDeleted: Record<string, number>): string {
  const entries = Object.entries(rowsDeleted).filter(([, rows]) => rows > 0);
  if (entries.length === 0) return "0";
  const total = entries.reduce((sum, [, rows]) => sum + rows, 0);
  return `${formatNumber(total)} (${entries.map(([table, rows]) => `${table} ${formatNumber(rows)}`).join(", ")})`;
}
