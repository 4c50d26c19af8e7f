import Link from "next/link";
import { Suspense } from "react";
import { ActionForm } from "@/components/action-form";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { SelectField, TextField } from "@/components/ui/fields";
import { boundedCountIsZero, formatBoundedCount, formatNumber, formatTime } from "@/components/ui/format";
import { KeysetPager } from "@/components/ui/keyset-pager";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import type { Actor } from "@/lib/core/auth/actor";
import { can } from "@/lib/core/auth/permissions";
import { decodeCursor } from "@/lib/views/listing/keyset-cursor";
import { listQuarantine } from "@/lib/views/quarantine/list-quarantine";
import { RESOLUTIONS } from "@/lib/operations/quarantine/resolve-quarantined-event";
import { requirePageActor } from "../../_lib/session";
import { resolveQuarantineAction } from "./actions";

export const metadata = { title: "Quarantine · Keyhook" };

// The resolve form's choices, built once: every row renders the same options.
const resolutionOptions = Object.entries(RESOLUTIONS).map(([value, label]) => ({ value, label }));

export default async function QuarantinePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requirePageActor("quarantine.view");
  const params = await searchParams;
  const cursorParam = typeof params.cursor === "string" ? params.cursor : undefined;
  return (
    <>
      <PageHeader
        title="Quarantine"
        description="Authentic events we could not use, and keys that may still be live. Each needs a human."
      />
      <Suspense key={cursorParam ?? ""} fallback={<Skeleton label="Loading quarantine…" />}>
        <QuarantineLists actor={actor} cursorParam={cursorParam} />
      </Suspense>
    </>
  );
}

async function QuarantineLists({ actor, cursorParam }: { actor: Actor; cursorParam?: string }) {
  const { events, eventsTotal, nextCursor, supersededKeys, supersededTotal } = await listQuarantine({
    actor,
    cursor: decodeCursor(cursorParam),
  });
  const mayResolve = can(actor, "quarantine.resolve");
  return (
    <div className="space-y-6">
      <Card title={`Quarantined events (${formatBoundedCount(eventsTotal)})`}>
        {events.length === 0 ? (
          <EmptyState title={cursorParam ? "No more quarantined events" : "Nothing in quarantine"} />
        ) : (
          <ul className="divide-y divide-slate-100" aria-label="Quarantined events">
            {events.map((event) => (
              <li key={String(event.id)} className="grid gap-3 py-3 md:grid-cols-[1fr_20rem]">
                <div className="text-sm">
                  <Link className="font-mono text-xs underline" href={`/ledger/${event.id}`}>
                    {event.eventId}
                  </Link>
                  <div>
                    {event.type} for {event.tenantId}
                    {event.keyId ? <span className="font-mono text-xs"> · {event.keyId}</span> : null}
                  </div>
                  <div className="text-amber-800">{event.reason}</div>
                  <div className="text-xs text-slate-500">{formatTime(event.receivedAt)}</div>
                </div>
                {mayResolve ? (
                  <ActionForm
                    action={resolveQuarantineAction}
                    hidden={{ id: String(event.id) }}
                    submitLabel="Mark resolved"
                    tone="secondary"
                  >
                    <SelectField label="Resolution" name="resolution" options={resolutionOptions} />
                    <TextField label="Note (optional)" name="note" />
                  </ActionForm>
                ) : null}
              </li>
            ))}
          </ul>
        )}
        {!boundedCountIsZero(eventsTotal) ? (
          <>
            <p className="mt-2 text-xs text-slate-500" data-testid="quarantine-page-info">
              {eventsTotal.exact && events.length === eventsTotal.value
                ? "Newest first."
                : `Showing ${formatNumber(events.length)} of ${formatBoundedCount(eventsTotal)}${eventsTotal.exact ? "" : " (estimated)"}, newest first.`}
            </p>
            <KeysetPager basePath="/quarantine" query="" cursorParam={cursorParam} nextCursor={nextCursor} />
          </>
        ) : null}
      </Card>
      <Card title={`Superseded keys (${formatNumber(supersededTotal)})`}>
        <p className="mb-3 text-sm text-slate-600">
          A newer key replaced these without the provider deactivating them: they may still work.{" "}
          {can(actor, "key.revoke")
            ? "Revoke them from their district page."
            : "Your role may not revoke a key: ask a platform admin or the district's admin to revoke them from the district page."}
        </p>
        {supersededKeys.length === 0 ? (
          <EmptyState title="No possibly-live keys" />
        ) : (
          <ul className="divide-y divide-slate-100 text-sm">
            {supersededKeys.map((key) => (
              <li key={key.id} className="py-2">
                <Link className="font-mono text-xs underline" href={`/districts/${encodeURIComponent(key.tenantId)}`}>
                  {key.id}
                </Link>{" "}
                in {key.tenantId}, superseded {formatTime(key.supersededAt)}
                {key.supersededByKeyId ? ` by ${key.supersededByKeyId}` : ""}
              </li>
            ))}
          </ul>
        )}
        {supersededTotal > supersededKeys.length ? (
          <p className="mt-2 text-xs text-slate-500">
            Showing the {formatNumber(supersededKeys.length)} most recently superseded of{" "}
            {formatNumber(supersededTotal)}; each district&apos;s page lists its own.
          </p>
        ) : null}
      </Card>
    </div>
  );
}
