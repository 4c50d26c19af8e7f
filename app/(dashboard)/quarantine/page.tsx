import Link from "next/link";
import { Suspense } from "react";
import { ActionForm } from "@/components/action-form";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { SelectField, TextField } from "@/components/ui/fields";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import type { Actor } from "@/lib/auth/actor";
import { can } from "@/lib/auth/permissions";
import { listQuarantine } from "@/lib/quarantine/list-quarantine";
import { RESOLUTIONS } from "@/lib/quarantine/resolve-quarantined-event";
import { requirePageActor } from "../../_lib/session";
import { resolveQuarantineAction } from "./actions";

export const metadata = { title: "Quarantine · Keyhook" };

export default async function QuarantinePage() {
  const actor = await requirePageActor("quarantine.view");
  return (
    <>
      <PageHeader
        title="Quarantine"
        description="Authentic events we could not use, and keys that may still be live. Each needs a human."
      />
      <Suspense fallback={<Skeleton label="Loading quarantine…" />}>
        <QuarantineLists actor={actor} />
      </Suspense>
    </>
  );
}

async function QuarantineLists({ actor }: { actor: Actor }) {
  const { events, supersededKeys } = await listQuarantine({ actor });
  const mayResolve = can(actor, "quarantine.resolve");
  return (
    <div className="space-y-6">
      <Card title={`Quarantined events (${events.length})`}>
        {events.length === 0 ? (
          <EmptyState title="Nothing in quarantine" />
        ) : (
          <ul className="divide-y divide-slate-100">
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
                    <SelectField
                      label="Resolution"
                      name="resolution"
                      options={Object.entries(RESOLUTIONS).map(([value, label]) => ({ value, label }))}
                    />
                    <TextField label="Note (optional)" name="note" />
                  </ActionForm>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title={`Superseded keys (${supersededKeys.length})`}>
        <p className="mb-3 text-sm text-slate-600">
          A newer key replaced these without the provider deactivating them: they may still work. Revoke them from their
          district page.
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
      </Card>
    </div>
  );
}
