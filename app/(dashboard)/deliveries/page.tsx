import Link from "next/link";
import { Suspense } from "react";
import { ActionForm } from "@/components/action-form";
import { Badge, HttpStatusBadge, OutcomeBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState, FormErrors, Notice } from "@/components/ui/empty-state";
import { buttonClass, SelectField, TextField } from "@/components/ui/fields";
import { FilterActions, TimeRangeFields } from "@/components/ui/filter-controls";
import { formatTime, plural } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/core/auth/actor";
import {
  deliveryFilterParams,
  parseDeliveryFilters,
  parseDeliveryPage,
  type DeliveryFilters,
} from "@/lib/views/deliveries/delivery-filters";
import {
  listDeliveries,
  type DeliveriesView,
  type DeliveryRow,
  type OurReceipt,
} from "@/lib/views/deliveries/list-deliveries";
import { requirePageActor } from "../../_lib/session";
import { bulkDryRunAction, bulkRedeliverAction, redeliverAction, replayLocallyAction } from "./actions";

export const metadata = { title: "Deliveries · Keyhook" };

/** What our 2xx answer meant, for a delivery the provider believes failed (it will send it again). */
const answeredWords: Record<string, string> = {
  applied: "we applied it",
  duplicate: "a duplicate of one we had applied",
  stale: "stale: older than the district's newest key, nothing to apply",
  quarantined: "held in quarantine for a human",
  ignored: "an event type we ignore",
};

function mismatchText(row: DeliveryRow): string {
  if (row.mismatch === "delivered_without_receipt") return "Provider says delivered, but we hold no receipt";
  if (row.mismatch === "answer_not_received")
    return "We answered 2xx more often than the provider recorded (an answer lost, or answered 503)";
  const answered = row.answered;
  return `Provider says failed, but we answered ${answered?.status ?? "2xx"}: ${answeredWords[answered?.outcome ?? ""] ?? answered?.outcome ?? "accepted"}`;
}

/** Why we refused a delivery, from the receipt's facts: the signature check first, else our answer's words. */
function refusalReason(receipt: OurReceipt): string | null {
  if (receipt.status < 400) return null;
  switch (receipt.signatureVerdict) {
    case "invalid":
      return "the signature matches none of our signing secrets";
    case "missing":
      return "it carried no signature headers";
    case "expired":
      return "its timestamp is outside our tolerance (clock skew, or a replay)";
  }
  return receipt.error;
}

/** Which district, when our receipts cannot say: a refusal is decided before the body is read. */
function districtOf(row: DeliveryRow): string {
  if (row.tenantId) return row.tenantId;
  return row.receipts.length > 0 && row.receipts.every((r) => r.status >= 400)
    ? "district not read (refused before the body was read)"
    : "district not named";
}

const statusOptions = [
  { value: "all", label: "All" },
  { value: "failed", label: "Failed" },
  { value: "mismatched", label: "Mismatched" },
];

type Params = Record<string, string | string[] | undefined>;

function deliveriesHref(filters: Record<string, string>, page = 1): string {
  const query = new URLSearchParams(filters);
  if (page !== 1) query.set("page", String(page));
  const text = query.toString();
  return `/deliveries${text ? `?${text}` : ""}`;
}

export default async function DeliveriesPage({ searchParams }: { searchParams: Promise<Params> }) {
  const actor = await requirePageActor("deliveries.view");
  const params = await searchParams;
  // One window for the list, its dry run and its bulk redelivery (lib/views/deliveries/delivery-filters.ts).
  const { filters, errors } = parseDeliveryFilters(params);
  const { page, providerCursor } = parseDeliveryPage(params);
  return (
    <>
      <PageHeader
        title="Deliveries"
        description="The provider's attempts for our hook next to our own receipts, joined on event id. Times are UTC."
      />
      <Card className="mb-6">
        <form
          method="get"
          className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3"
          aria-label="Delivery filters"
        >
          <SelectField label="Status" name="status" defaultValue={filters.status} options={statusOptions} />
          <TextField label="District" name="tenant" defaultValue={filters.tenantId} placeholder="district-4417" />
          <TextField label="Event id" name="event" defaultValue={filters.eventId} placeholder="evt_…" />
          <TimeRangeFields from={filters.since} to={filters.openEnded ? "" : filters.until} toPlaceholder="now" />
          <FilterActions clearHref="/deliveries" submitLabel="Show" clearLabel="Last 24 h" />
        </form>
      </Card>
      <FormErrors errors={errors} />
      {errors.length ? null : (
        // Keyed by what was asked for, not by the default window (it moves with the clock): a
        // re-render after a replay must keep the replay's result on screen.
        <Suspense
          key={JSON.stringify([
            params.from,
            params.to,
            filters.status,
            filters.tenantId,
            filters.eventId,
            page,
            providerCursor,
          ])}
          fallback={<Skeleton label="Loading deliveries…" />}
        >
          <DeliveryTable actor={actor} filters={filters} page={page} providerCursor={providerCursor} />
        </Suspense>
      )}
    </>
  );
}

async function DeliveryTable(props: { actor: Actor; filters: DeliveryFilters; page: number; providerCursor?: string }) {
  const { filters } = props;
  const view = await listDeliveries({
    actor: props.actor,
    ...filters,
    page: props.page,
    providerCursor: props.providerCursor,
  });
  const links = deliveryFilterParams(filters);
  return (
    <>
      {view.provider.kind === "unreachable" ? (
        <Notice tone="warn">
          <strong>Provider unreachable:</strong> {view.provider.message}. Showing our own receipts only; mismatches
          cannot be checked.
        </Notice>
      ) : null}
      {view.provider.kind === "not_registered" ? (
        <Notice tone="info">
          No webhook is registered with the provider yet, so there is no provider history to compare. Showing our own
          receipts.
        </Notice>
      ) : null}
      {view.truncated ? (
        <Notice tone="info">
          This window holds more deliveries than one view reads: the oldest are left out. Narrow the window to see them.
        </Notice>
      ) : null}
      {view.rows.length === 0 ? (
        <EmptyState title="No deliveries match">
          Widen the window, or clear the status, district or event id.
        </EmptyState>
      ) : (
        <Card>
          <p className="mb-2 text-xs text-slate-500">
            {plural(view.total, "event")}
            {view.pageCount > 1 ? `, page ${view.page} of ${view.pageCount}` : ""}
          </p>
          <Table label="Deliveries" stack fixed>
            <thead>
              <tr>
                <Th className="md:w-[28%]">Event</Th>
                <Th>Provider attempts</Th>
                <Th>Our receipts</Th>
                <Th className="md:w-52">Replay</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {view.rows.map((row) => (
                <DeliveryRowView key={row.eventId} row={row} />
              ))}
            </tbody>
          </Table>
          {view.pageCount > 1 ? (
            <nav aria-label="Delivery pages" className="mt-4 flex flex-wrap items-center gap-2 text-sm">
              {view.page > 1 ? (
                <Link className={buttonClass.secondary} href={deliveriesHref(links, view.page - 1)}>
                  Newer
                </Link>
              ) : null}
              <span className="text-slate-600">
                Page {view.page} of {view.pageCount}
              </span>
              {view.page < view.pageCount ? (
                <Link className={buttonClass.secondary} href={deliveriesHref(links, view.page + 1)}>
                  Older
                </Link>
              ) : null}
            </nav>
          ) : null}
        </Card>
      )}
      <BulkRedeliveryCard filters={filters} view={view} />
    </>
  );
}

/** Acts on the rows above that failed at the provider, all pages of them, with the same filters. */
function BulkRedeliveryCard({ filters, view }: { filters: DeliveryFilters; view: DeliveriesView }) {
  const count = view.redeliverable.length;
  const scope = [
    `${formatTime(filters.since)} → ${filters.openEnded ? "now" : formatTime(filters.until)}`,
    filters.tenantId ? `district ${filters.tenantId}` : null,
    filters.eventId ? `event ${filters.eventId}` : null,
    filters.status !== "all" ? `status ${filters.status}` : null,
  ]
    .filter(Boolean)
    .join(" · ");
  const hidden = deliveryFilterParams(filters, { pinned: true });
  const unavailable =
    view.provider.kind === "not_registered"
      ? "No webhook is registered with the provider yet."
      : view.provider.kind === "unreachable"
        ? "The provider is unreachable: its failed deliveries are unknown."
        : null;
  return (
    <Card title="Bulk redelivery of this list's failed deliveries" className="mt-6">
      <p className="mb-3 text-sm text-slate-600">
        Asks the provider to send again every delivery of the list above that failed at the provider, on every page of
        it (<span data-testid="bulk-window">{scope}</span>)
        {unavailable ? (
          "."
        ) : (
          <>
            : <strong data-testid="bulk-count">{plural(count, "failed delivery", "failed deliveries")}</strong>. Change
            which with the filters; name them first with a dry run.
          </>
        )}
      </p>
      {unavailable ? (
        <p className="text-sm text-slate-700" data-testid="bulk-unavailable">
          {unavailable}
        </p>
      ) : (
        <div className="flex flex-wrap items-start gap-4">
          <ActionForm
            action={bulkDryRunAction}
            hidden={hidden}
            submitLabel="Dry run: name them"
            tone="secondary"
            className="max-w-xl"
          />
          <ActionForm
            action={bulkRedeliverAction}
            hidden={hidden}
            submitLabel={`Redeliver ${plural(count, "failed delivery", "failed deliveries")}`}
            disabledReason={count === 0 ? "Nothing to redeliver: no delivery in this list failed." : undefined}
            confirm={{
              prompt: `Ask the provider to redeliver the ${plural(count, "failed delivery", "failed deliveries")} of this list (${scope})?`,
              confirmLabel: "Yes, redeliver",
            }}
            className="max-w-xl"
          />
        </div>
      )}
    </Card>
  );
}

function DeliveryRowView({ row }: { row: DeliveryRow }) {
  const latestAttempt = row.attempts[0];
  const latestReceipt = row.receipts[0];
  return (
    <tr data-event-id={row.eventId} className={row.mismatch ? "bg-amber-50" : undefined}>
      <Td>
        {/* The event's own page when it was claimed; a refused delivery never reached the ledger. */}
        {row.ledgerId ? (
          <Link className="break-all font-mono text-xs underline" href={`/ledger/${row.ledgerId}`}>
            {row.eventId}
          </Link>
        ) : (
          <>
            <span className="break-all font-mono text-xs">{row.eventId}</span>
            <div className="text-xs text-slate-500">not in the ledger: never accepted</div>
          </>
        )}
        <div className="text-xs text-slate-500">{districtOf(row)}</div>
        {row.mismatch ? (
          <div className="mt-1">
            <Badge tone="amber">{mismatchText(row)}</Badge>
          </div>
        ) : null}
      </Td>
      <Td label="Provider attempts" className="text-xs">
        {latestAttempt ? (
          <details>
            <summary className="cursor-pointer">
              {plural(row.attempts.length, "attempt")} · last <HttpStatusBadge status={latestAttempt.statusCode} />{" "}
              {latestAttempt.succeeded ? "delivered" : "failed"}
              <span className="block text-slate-500">{formatTime(latestAttempt.at)}</span>
            </summary>
            <ul className="mt-1 space-y-1 border-l border-slate-200 pl-2">
              {row.attempts.map((a) => (
                <li key={a.id}>
                  #{a.attempt} {a.trigger} <HttpStatusBadge status={a.statusCode} />{" "}
                  {a.succeeded ? "delivered" : "failed"} · {formatTime(a.at)}
                  {a.error ? <span className="break-words text-rose-700"> · {a.error}</span> : null}
                </li>
              ))}
            </ul>
          </details>
        ) : (
          <span className="text-slate-500">—</span>
        )}
      </Td>
      <Td label="Our receipts" className="text-xs">
        {latestReceipt ? (
          <details>
            <summary className="cursor-pointer">
              {plural(row.receipts.length, "receipt")} · last <HttpStatusBadge status={latestReceipt.status} />{" "}
              {latestReceipt.outcome ? <OutcomeBadge outcome={latestReceipt.outcome} /> : null}
              {refusalReason(latestReceipt) ? (
                <span className="block text-rose-700" data-testid="refusal-reason">
                  refused: {refusalReason(latestReceipt)}
                </span>
              ) : null}
              <span className="block text-slate-500">{formatTime(latestReceipt.receivedAt)}</span>
            </summary>
            <ul className="mt-1 space-y-1 border-l border-slate-200 pl-2">
              {row.receipts.map((r) => (
                <li key={String(r.id)}>
                  <HttpStatusBadge status={r.status} /> {r.outcome ? <OutcomeBadge outcome={r.outcome} /> : null}{" "}
                  {r.source} · {formatTime(r.receivedAt)}
                  {refusalReason(r) ? <span className="break-words text-rose-700"> · {refusalReason(r)}</span> : null}
                </li>
              ))}
            </ul>
          </details>
        ) : (
          <span className="text-slate-500">none</span>
        )}
      </Td>
      <Td>
        <div className="flex flex-wrap gap-2 md:flex-col">
          {row.replayable && row.tenantId ? (
            <ActionForm
              action={replayLocallyAction}
              hidden={{ tenantId: row.tenantId, eventId: row.eventId }}
              submitLabel="Replay stored payload"
              tone="secondary"
            />
          ) : null}
          {latestAttempt ? (
            <ActionForm
              action={redeliverAction}
              hidden={{ deliveryId: latestAttempt.id, eventId: row.eventId, tenantId: row.tenantId ?? "" }}
              submitLabel="Ask provider to redeliver"
              tone="secondary"
            />
          ) : null}
        </div>
      </Td>
    </tr>
  );
}
