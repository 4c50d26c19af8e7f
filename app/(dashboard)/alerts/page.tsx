import Link from "next/link";
import { Suspense } from "react";
import { ActionForm } from "@/components/action-form";
import { Card } from "@/components/ui/card";
import { EmptyState, FormErrors } from "@/components/ui/empty-state";
import { SelectField } from "@/components/ui/fields";
import { FilterActions } from "@/components/ui/filter-controls";
import { formatNumber, formatTime, plural } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import { ALERT_KINDS, isPlatformAlertKind } from "@/lib/operations/alerts/alert-kinds";
import { listAlerts, STATE_FILTERS, type AlertRow } from "@/lib/views/alerts/list-alerts";
import type { Actor } from "@/lib/core/auth/actor";
import { can } from "@/lib/core/auth/permissions";
import { latestDriftRuns } from "@/lib/operations/drift/drift-runs";
import { isAppError } from "@/lib/core/errors";
import { firstParam } from "@/lib/views/listing/query-filters";
import { requirePageActor } from "../../_lib/session";
import { runDriftCheckAction } from "./actions";
import { AlertStateBadge, kindLabel, WhoActed } from "./alert-badges";

export const metadata = { title: "Alerts · Keyhook" };

type Params = Record<string, string | string[] | undefined>;

const stateLabels: Record<string, string> = {
  unresolved: "Needs a human (open + acknowledged)",
  open: "Open",
  acknowledged: "Acknowledged",
  resolved: "Resolved",
  all: "All",
};

export default async function AlertsPage({ searchParams }: { searchParams: Promise<Params> }) {
  const actor = await requirePageActor("alerts.view");
  const params = await searchParams;
  const state = firstParam(params.state) ?? "";
  const kind = firstParam(params.kind) ?? "";
  return (
    <>
      <PageHeader
        title="Alerts"
        description={
          actor.tenantId
            ? `What needs a human in district ${actor.tenantId}. One alert per cause, with a count.`
            : "Everything that needs a human, across districts. One alert per cause, with a count."
        }
      />
      <Card className="mb-6">
        <form method="get" className="grid grid-cols-1 gap-3 sm:grid-cols-3" aria-label="Alert filters">
          <SelectField
            label="State"
            name="state"
            defaultValue={state || "unresolved"}
            options={STATE_FILTERS.map((value) => ({ value, label: stateLabels[value] ?? value }))}
          />
          <SelectField
            label="Kind"
            name="kind"
            defaultValue={kind}
            options={[
              { value: "", label: "Every kind" },
              ...Object.entries(ALERT_KINDS)
                .filter(([value]) => !actor.tenantId || !isPlatformAlertKind(value))
                .map(([value, label]) => ({ value, label })),
            ]}
          />
          <FilterActions clearHref="/alerts" submitLabel="Show" />
        </form>
      </Card>
      <div className="space-y-6">
        {can(actor, "drift.run") ? (
          <Suspense fallback={<Skeleton label="Loading drift checks…" />}>
            <DriftCard />
          </Suspense>
        ) : null}
        <Suspense key={`${state}|${kind}`} fallback={<Skeleton label="Loading alerts…" />}>
          <AlertList actor={actor} state={state} kind={kind} />
        </Suspense>
      </div>
    </>
  );
}

async function AlertList({ actor, state, kind }: { actor: Actor; state: string; kind: string }) {
  let result;
  try {
    result = await listAlerts({ actor, state, kind });
  } catch (error) {
    if (isAppError(error, "bad_request")) return <FormErrors errors={[error.publicMessage]} />;
    throw error;
  }
  const { alerts } = result;
  return (
    <Card
      title={`${formatNumber(alerts.length)} alert${alerts.length === 1 ? "" : "s"}${alerts.length === 200 ? " (newest 200)" : ""}`}
    >
      {alerts.length === 0 ? (
        <EmptyState title="Nothing needs a human here">
          {actor.tenantId
            ? "Quarantined events, superseded keys, missing events, drift and failed provider calls of your district show up here."
            : "Quarantined events, superseded keys, gaps, drift, failed purges and provider calls show up here."}
        </EmptyState>
      ) : (
        <Table label="Alerts" stack>
          <thead>
            <tr>
              <Th>Alert</Th>
              <Th>District</Th>
              <Th>First / last seen</Th>
              <Th>Count</Th>
              <Th>State</Th>
              <Th>Who acted</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {alerts.map((alert) => (
              <AlertListRow key={alert.id} alert={alert} />
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

function AlertListRow({ alert }: { alert: AlertRow }) {
  return (
    <tr data-testid="alert-row" data-kind={alert.kind} data-state={alert.state}>
      <Td className="min-w-0 md:max-w-md">
        <div className="text-xs font-semibold text-slate-600">{kindLabel(alert.kind)}</div>
        <Link className="break-words underline" href={`/alerts/${alert.id}`}>
          {alert.summary}
        </Link>
        <div className="break-all font-mono text-xs text-slate-500">{alert.subject}</div>
      </Td>
      <Td label="District" className="break-all">
        {alert.tenantId ?? "—"}
      </Td>
      <Td label="First / last seen" className="whitespace-nowrap text-xs">
        <div>{formatTime(alert.firstSeenAt)}</div>
        <div>{formatTime(alert.lastSeenAt)}</div>
      </Td>
      <Td label="Count" className="tabular-nums">
        {formatNumber(alert.count)}
      </Td>
      <Td label="State">
        <AlertStateBadge state={alert.state} />
      </Td>
      <Td label="Who acted" className="text-xs">
        <WhoActed alert={alert} />
      </Td>
    </tr>
  );
}

async function DriftCard() {
  const runs = await latestDriftRuns(5);
  return (
    <Card title="Drift check">
      <div className="grid gap-4 md:grid-cols-[1fr_16rem]">
        <div className="text-sm">
          <p className="mb-2 text-slate-600">
            Lists every district&apos;s keys at the provider, page by page, and compares them with ours. Each key live
            on one side only becomes an alert.
          </p>
          {runs.length === 0 ? (
            <p className="text-slate-500">No drift check has run yet.</p>
          ) : (
            <ul className="space-y-1" aria-label="Latest drift checks">
              {runs.map((run) => (
                <li key={run.id} data-testid="drift-run">
                  Run {run.id} · <strong>{run.status}</strong> · {run.trigger} by {run.requestedBy} ·{" "}
                  {formatTime(run.requestedAt)} · {plural(run.tenantsDone, "district")}, {plural(run.pages, "page")},{" "}
                  {plural(run.keysCompared, "key")}, {plural(run.differences, "difference")}
                  {run.error ? <span className="text-rose-700"> · {run.error}</span> : null}
                </li>
              ))}
            </ul>
          )}
        </div>
        <ActionForm action={runDriftCheckAction} submitLabel="Run drift check" tone="secondary" />
      </div>
    </Card>
  );
}
