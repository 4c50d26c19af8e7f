import Link from "next/link";
import { Suspense } from "react";
import { ActionForm } from "@/components/action-form";
import { Badge, HttpStatusBadge, OutcomeBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState, FormErrors, Notice } from "@/components/ui/empty-state";
import { buttonClass, TextField } from "@/components/ui/fields";
import { FilterActions, TimeRangeFields } from "@/components/ui/filter-controls";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/auth/actor";
import { listDeliveries, type DeliveryRow } from "@/lib/deliveries/list-deliveries";
import { firstParam, parseUtcDateTime } from "@/lib/listing/query-filters";
import { requirePageActor } from "../../_lib/session";
import { bulkDryRunAction, bulkRedeliverAction, redeliverAction, replayLocallyAction } from "./actions";

export const metadata = { title: "Deliveries · Keyhook" };

const mismatchText = {
  failed_but_applied: "Provider says failed, but we applied it",
  delivered_without_receipt: "Provider says delivered, but we hold no receipt",
} as const;

const local = (date: Date) => date.toISOString().slice(0, 16);

export default async function DeliveriesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const actor = await requirePageActor("deliveries.view");
  const params = await searchParams;
  const errors: string[] = [];
  const now = new Date();
  const since = parseUtcDateTime(firstParam(params.from), "From", errors) ?? new Date(now.getTime() - 24 * 3_600_000);
  const until = parseUtcDateTime(firstParam(params.to), "To", errors) ?? new Date(now.getTime() + 60_000);
  if (since >= until) errors.push("From must be before To.");
  const eventId = firstParam(params.event)?.slice(0, 200);
  const providerCursor = firstParam(params.pcursor)?.slice(0, 500);
  return (
    <>
      <PageHeader title="Deliveries" description="The provider's attempts for our hook next to our own receipts, joined on event id. Times are UTC." />
      <Card className="mb-6">
        <form method="get" className="grid grid-cols-1 gap-3 sm:grid-cols-4" aria-label="Delivery filters">
          <TimeRangeFields from={local(since)} to={local(until)} />
          <TextField label="Event id" name="event" defaultValue={eventId} placeholder="evt_…" />
          <FilterActions clearHref="/deliveries" submitLabel="Show" clearLabel="Last 24 h" />
        </form>
      </Card>
      <FormErrors errors={errors} />
      {errors.length ? null : (
        // Keyed by what was asked for, not by the default window (it moves with the clock): a
        // re-render after a replay must keep the replay's result on screen.
        <Suspense key={JSON.stringify([params.from, params.to, eventId, providerCursor])} fallback={<Skeleton label="Loading deliveries…" />}>
          <DeliveryTable actor={actor} since={since} until={until} eventId={eventId} providerCursor={providerCursor} />
        </Suspense>
      )}
      <Card title="Bulk replay of failed deliveries" className="mt-6">
        <p className="mb-3 text-sm text-slate-600">Asks the provider to redeliver every event whose delivery failed in the window. Count them first with a dry run.</p>
        <div className="grid gap-4 sm:grid-cols-2">
          <ActionForm action={bulkDryRunAction} submitLabel="Count failed deliveries (dry run)" tone="secondary">
            <TimeRangeFields from={local(since)} to={local(until)} required />
          </ActionForm>
          <ActionForm action={bulkRedeliverAction} submitLabel="Redeliver failed deliveries" confirm={{ prompt: "Ask the provider to redeliver every failed delivery in this window?", confirmLabel: "Yes, redeliver" }}>
            <TimeRangeFields from={local(since)} to={local(until)} required />
          </ActionForm>
        </div>
      </Card>
    </>
  );
}

async function DeliveryTable(props: { actor: Actor; since: Date; until: Date; eventId?: string; providerCursor?: string }) {
  const view = await listDeliveries(props);
  return (
    <>
      {view.provider.kind === "unreachable" ? (
        <Notice tone="warn">
          <strong>Provider unreachable:</strong> {view.provider.message}. Showing our own receipts only; mismatches cannot be checked.
        </Notice>
      ) : null}
      {view.provider.kind === "not_registered" ? (
        <Notice tone="info">No webhook is registered with the provider yet, so there is no provider history to compare. Showing our own receipts.</Notice>
      ) : null}
      {view.rows.length === 0 ? (
        <EmptyState title="No deliveries in this window">Widen the window or clear the event id.</EmptyState>
      ) : (
        <Card>
          <Table label="Deliveries">
            <thead>
              <tr>
                <Th>Event</Th>
                <Th>Provider attempts</Th>
                <Th>Our receipts</Th>
                <Th>Replay</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {view.rows.map((row) => (
                <DeliveryRowView key={row.eventId} row={row} />
              ))}
            </tbody>
          </Table>
          {view.provider.kind === "ok" && view.provider.nextCursor ? (
            <Link className={`${buttonClass.secondary} mt-4`} href={`/deliveries?from=${local(props.since)}&to=${local(props.until)}&pcursor=${encodeURIComponent(view.provider.nextCursor)}`}>
              Older provider attempts
            </Link>
          ) : null}
        </Card>
      )}
    </>
  );
}

function DeliveryRowView({ row }: { row: DeliveryRow }) {
  const latestAttempt = row.attempts[0];
  return (
    <tr data-event-id={row.eventId} className={row.mismatch ? "bg-amber-50" : undefined}>
      <Td>
        <Link className="font-mono text-xs underline" href={`/ledger?event=${encodeURIComponent(row.eventId)}`}>
          {row.eventId}
        </Link>
        <div className="text-xs text-slate-500">{row.tenantId ?? "unknown district"}</div>
        {row.mismatch ? (
          <div className="mt-1">
            <Badge tone="amber">{mismatchText[row.mismatch]}</Badge>
          </div>
        ) : null}
      </Td>
      <Td className="text-xs">
        {row.attempts.length === 0 ? (
          <span className="text-slate-400">—</span>
        ) : (
          <ul className="space-y-1">
            {row.attempts.map((a) => (
              <li key={a.id} className="whitespace-nowrap">
                #{a.attempt} {a.trigger} <HttpStatusBadge status={a.statusCode} /> {a.succeeded ? "delivered" : "failed"} · {formatTime(a.at)}
                {a.error ? <span className="text-rose-700"> · {a.error}</span> : null}
              </li>
            ))}
          </ul>
        )}
      </Td>
      <Td className="text-xs">
        {row.receipts.length === 0 ? (
          <span className="text-slate-400">none</span>
        ) : (
          <ul className="space-y-1">
            {row.receipts.map((r) => (
              <li key={String(r.id)} className="whitespace-nowrap">
                <HttpStatusBadge status={r.status} /> {r.outcome ? <OutcomeBadge outcome={r.outcome} /> : null} {r.source} · {formatTime(r.receivedAt)}
              </li>
            ))}
          </ul>
        )}
      </Td>
      <Td className="min-w-48 space-y-2">
        {row.replayable && row.tenantId ? (
          <ActionForm action={replayLocallyAction} hidden={{ tenantId: row.tenantId, eventId: row.eventId }} submitLabel="Replay stored payload" tone="secondary" />
        ) : null}
        {latestAttempt ? (
          <ActionForm action={redeliverAction} hidden={{ deliveryId: latestAttempt.id, eventId: row.eventId, tenantId: row.tenantId ?? "" }} submitLabel="Ask provider to redeliver" tone="secondary" />
        ) : null}
      </Td>
    </tr>
  );
}
