import Link from "next/link";
import { ActionForm } from "@/components/action-form";
import { HttpStatusBadge, OutcomeBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { SelectField, TextField } from "@/components/ui/fields";
import { formatNumber, formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Table, Td, Th } from "@/components/ui/table";
import { isDriftKind, RESOLUTIONS } from "@/lib/operations/alerts/alert-kinds";
import { getAlert, type AlertDetail } from "@/lib/views/alerts/get-alert";
import { printJson } from "@/lib/core/json/print-json";
import { orNotFound } from "../../../_lib/or-not-found";
import { requirePageActor } from "../../../_lib/session";
import { acknowledgeAlertAction, resolveAlertAction } from "../actions";
import { AlertStateBadge, kindLabel, WhoActed } from "../alert-badges";

export const metadata = { title: "Alert · Keyhook" };

const resolutionHelp: Record<string, string> = {
  revoke_requested:
    "Revoke the key at the provider (staged in the outbox, sent by the worker with a stable idempotency key).",
  recorded_provider_state:
    "Record the provider's state here: our live copy of the key becomes rotated or revoked (audited).",
  resent:
    "Send again: the call goes back in the queue under its idempotency key (a call the provider already carried out answers with its first result, never twice).",
  explained:
    "Mark as explained: nothing changes; the note says why. It stays resolved as long as the same condition holds; a change, or the condition ending and coming back, opens it again.",
  resolved:
    "Mark as resolved: you dealt with it. It stays resolved while the condition holds; a change, or the condition ending and coming back, opens it again.",
};

export default async function AlertPage({ params }: { params: Promise<{ id: string }> }) {
  const actor = await requirePageActor("alerts.view");
  const { id } = await params;
  const alert = await orNotFound(() => getAlert({ actor, id }));
  const facts: [string, React.ReactNode][] = [
    ["Kind", kindLabel(alert.kind)],
    [
      "Subject",
      <span key="s" className="font-mono text-xs">
        {alert.subject}
      </span>,
    ],
    [
      "District",
      alert.tenantId ? (
        <Link key="d" className="underline" href={`/districts/${encodeURIComponent(alert.tenantId)}`}>
          {alert.tenantId}
        </Link>
      ) : (
        "— (platform-wide)"
      ),
    ],
    ["State", <AlertStateBadge key="st" state={alert.state} />],
    ["First seen", formatTime(alert.firstSeenAt)],
    ["Last seen", formatTime(alert.lastSeenAt)],
    ["Count", formatNumber(alert.count)],
    ["Who acted", <WhoActed key="w" alert={alert} />],
  ];
  if (alert.resolution)
    facts.push(["Resolution", (RESOLUTIONS as Record<string, string>)[alert.resolution] ?? alert.resolution]);
  if (alert.note) facts.push(["Note", alert.note]);
  if (alert.state === "resolved" && alert.resolution !== "condition_cleared")
    facts.push([
      "Condition",
      alert.conditionClearedAt
        ? `gone since ${formatTime(alert.conditionClearedAt)}`
        : "still holds: this decision stands until it changes",
    ]);
  const drift = isDriftKind(alert.kind);
  return (
    <>
      <PageHeader
        title={alert.summary}
        description={
          <Link className="underline" href="/alerts">
            ← All alerts
          </Link>
        }
      />
      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Alert">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            {facts.map(([label, value]) => (
              <div key={label} className="contents">
                <dt className="text-slate-500">{label}</dt>
                <dd className="min-w-0 break-words">{value}</dd>
              </div>
            ))}
          </dl>
        </Card>
        <Card title="What to do">
          <AlertActions alert={alert} />
        </Card>
        {drift ? (
          <>
            <Card title="At the provider">
              <SideFacts side={alert.details.provider} missing="The provider does not list this key." />
            </Card>
            <Card title="Here (Keyhook)">
              <SideFacts side={alert.details.ours} missing="We have no record of this key." />
            </Card>
          </>
        ) : null}
      </div>
      <div className="mt-6 space-y-6">
        {alert.tenantId && typeof alert.details.key_id === "string" ? <Evidence alert={alert} /> : null}
        <Card title="Details">
          <pre className="max-h-96 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-3 text-xs">
            {printJson(alert.details, { indent: 2 }).text}
          </pre>
        </Card>
      </div>
    </>
  );
}

function SideFacts({ side, missing }: { side: unknown; missing: string }) {
  if (!side || typeof side !== "object") return <p className="text-sm text-slate-600">{missing}</p>;
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
      {Object.entries(side as Record<string, unknown>).map(([name, value]) => (
        <div key={name} className="contents">
          <dt className="text-slate-500">{name.replaceAll("_", " ")}</dt>
          <dd className="min-w-0 break-all">
            {value === null || value === undefined
              ? "—"
              : Array.isArray(value)
                ? value.join(", ") || "—"
                : String(value)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function AlertActions({ alert }: { alert: AlertDetail }) {
  const { acknowledge, resolutions } = alert.actions;
  if (!acknowledge && resolutions.length === 0)
    return (
      <p className="text-sm text-slate-600">
        {alert.state === "resolved"
          ? "Resolved: nothing left to do."
          : "Your role can look at this alert but not act on it."}
      </p>
    );
  return (
    <div className="space-y-4">
      {acknowledge ? (
        <ActionForm
          action={acknowledgeAlertAction}
          hidden={{ id: alert.id }}
          submitLabel="Acknowledge"
          tone="secondary"
        >
          <p className="text-sm text-slate-600">Tell the others you are on it (it stays in the list until resolved).</p>
        </ActionForm>
      ) : null}
      {resolutions.length > 0 ? (
        <ActionForm
          action={resolveAlertAction}
          hidden={{ id: alert.id }}
          submitLabel="Resolve"
          confirm={
            resolutions.includes("revoke_requested") ||
            resolutions.includes("recorded_provider_state") ||
            resolutions.includes("resent")
              ? { prompt: "Resolve this alert with the chosen action?", confirmLabel: "Yes, resolve" }
              : undefined
          }
        >
          <SelectField
            label="How"
            name="resolution"
            defaultValue={resolutions[0]}
            options={resolutions.map((value) => ({ value, label: RESOLUTIONS[value] }))}
          />
          <ul className="list-disc space-y-1 pl-5 text-xs text-slate-600">
            {resolutions.map((value) => (
              <li key={value}>{resolutionHelp[value]}</li>
            ))}
          </ul>
          <TextField label="Note (required to mark as explained)" name="note" />
        </ActionForm>
      ) : null}
    </div>
  );
}

function Evidence({ alert }: { alert: AlertDetail }) {
  const { events, receipts } = alert.evidence;
  return (
    <Card title="The events that explain it (our ledger and receipts for this key)">
      {events.length === 0 ? (
        <EmptyState title="No event for this key ever reached us">
          If the provider says it exists, its webhook was lost (or never sent): that is the drift.
        </EmptyState>
      ) : (
        <Table label="Ledger events for the key" stack>
          <thead>
            <tr>
              <Th>Event</Th>
              <Th>Type</Th>
              <Th>Sequence</Th>
              <Th>Outcome</Th>
              <Th>Received</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {events.map((event) => (
              <tr key={event.id}>
                <Td>
                  <Link className="font-mono text-xs underline" href={`/ledger/${event.id}`}>
                    {event.eventId}
                  </Link>
                </Td>
                <Td label="Type">{event.type}</Td>
                <Td label="Sequence" className="tabular-nums">
                  {event.sequence ?? "—"}
                </Td>
                <Td label="Outcome">
                  <OutcomeBadge outcome={event.outcome} />
                  {event.reason ? <div className="text-xs text-slate-500">{event.reason}</div> : null}
                </Td>
                <Td label="Received" className="whitespace-nowrap text-xs">
                  {formatTime(event.receivedAt)}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {receipts.length > 0 ? (
        <div className="mt-4">
          <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">
            Our answers to those deliveries
          </h3>
          <ul className="space-y-1 text-sm">
            {receipts.map((receipt) => (
              <li key={receipt.id} className="flex flex-wrap items-center gap-2">
                <HttpStatusBadge status={receipt.status} />
                <span className="font-mono text-xs">{receipt.eventId}</span>
                <span>{receipt.outcome ?? receipt.error ?? ""}</span>
                <span className="text-xs text-slate-500">{formatTime(receipt.receivedAt)}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Card>
  );
}
