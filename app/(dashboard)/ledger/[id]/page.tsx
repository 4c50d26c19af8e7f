import Link from "next/link";
import { ActionForm } from "@/components/action-form";
import { HttpStatusBadge, OutcomeBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { EventOutcome } from "@/components/ui/event-outcome";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Table, Td, Th } from "@/components/ui/table";
import { can } from "@/lib/core/auth/permissions";
import { getLedgerEvent } from "@/lib/views/ledger/get-ledger-event";
import { orNotFound } from "../../../_lib/or-not-found";
import { requirePageActor } from "../../../_lib/session";
import { replayLocallyAction } from "../../deliveries/actions";

export const metadata = { title: "Event · Keyhook" };

export default async function LedgerEventPage({ params }: { params: Promise<{ id: string }> }) {
  const actor = await requirePageActor("ledger.view");
  const { id } = await params;
  const event = await orNotFound(() => getLedgerEvent({ actor, id }));
  const facts: [string, React.ReactNode][] = [
    [
      "District",
      <Link key="d" className="underline" href={`/districts/${encodeURIComponent(event.tenantId)}`}>
        {event.tenantId}
      </Link>,
    ],
    ["Type", event.type],
    ["Key", event.keyId ?? "—"],
    ["Previous key", event.previousKeyId ?? "—"],
    ["Sequence", event.sequence === null ? "—" : String(event.sequence)],
    ["Outcome", <EventOutcome key="o" event={event} />],
    ["Occurred", formatTime(event.occurredAt)],
    ["First received", formatTime(event.receivedAt)],
    ["Processing", `${(event.processingMicros / 1000).toFixed(2)} ms`],
    ["Arrived", `${event.receipts.length} time${event.receipts.length === 1 ? "" : "s"}`],
  ];
  if (event.resolvedAt)
    facts.push(["Resolved", `${formatTime(event.resolvedAt)} by ${event.resolvedBy}: ${event.resolution}`]);
  return (
    <>
      <PageHeader title={event.eventId} description="One claimed event, its stored payload and every delivery of it." />
      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Event">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            {facts.map(([label, value]) => (
              <div key={label} className="contents">
                <dt className="text-slate-500">{label}</dt>
                <dd className="break-all">{value}</dd>
              </div>
            ))}
          </dl>
          {can(actor, "delivery.replay") ? (
            <div className="mt-4">
              <ActionForm
                action={replayLocallyAction}
                hidden={{ tenantId: event.tenantId, eventId: event.eventId }}
                submitLabel="Replay stored payload"
                tone="secondary"
              />
            </div>
          ) : null}
        </Card>
        <Card title="Payload">
          {event.payloadText === null ? (
            <EmptyState title="Payload removed">
              Retention removed the stored body; the claim itself is kept for deduplication.
            </EmptyState>
          ) : (
            <pre className="max-h-96 overflow-auto rounded bg-slate-900 p-3 text-xs text-slate-100">
              {event.payloadText}
            </pre>
          )}
        </Card>
      </div>
      <Card title="Deliveries of this event" className="mt-6">
        {event.receipts.length === 0 ? (
          <EmptyState title="No receipts kept">Receipts older than the retention window are purged.</EmptyState>
        ) : (
          // Stacked on a phone: the answer, outcome and latency are what a person opens this for.
          <Table label="Receipts" stack>
            <thead>
              <tr>
                <Th>When</Th>
                <Th>Source</Th>
                <Th>Signature</Th>
                <Th>We answered</Th>
                <Th>Outcome</Th>
                <Th>Latency</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {event.receipts.map((receipt) => (
                <tr key={String(receipt.id)}>
                  <Td className="whitespace-nowrap text-xs">{formatTime(receipt.receivedAt)}</Td>
                  <Td label="Source" className="text-xs">
                    {receipt.source}
                  </Td>
                  <Td label="Signature" className="text-xs">
                    {receipt.signatureVerdict}
                  </Td>
                  <Td label="We answered">
                    <HttpStatusBadge status={receipt.status} />
                    {receipt.error ? <div className="break-words text-xs text-rose-700">{receipt.error}</div> : null}
                  </Td>
                  <Td label="Outcome">{receipt.outcome ? <OutcomeBadge outcome={receipt.outcome} /> : "—"}</Td>
                  <Td label="Latency" className="text-xs">
                    {(receipt.latencyMicros / 1000).toFixed(2)} ms
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>
    </>
  );
}
