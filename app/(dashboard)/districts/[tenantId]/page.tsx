import { randomBytes } from "node:crypto";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ActionForm } from "@/components/action-form";
import { Badge, OutcomeBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { TextField } from "@/components/ui/fields";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Table, Td, Th } from "@/components/ui/table";
import { can } from "@/lib/auth/permissions";
import { isAppError } from "@/lib/errors";
import { getDistrict, revokeStateOf, type KeyView } from "@/lib/keys/get-district";
import { requirePageActor } from "../../../_lib/session";
import { SequenceGapsCard } from "../../_components/sequence-gaps-card";
import { issueKeyAction, revokeKeyAction, rotateKeyAction } from "./actions";

export const metadata = { title: "District · Keyhook" };

const statusTone = { active: "green", superseded: "amber", rotated: "slate", revoked: "red" } as const;

function KeyStatus({ keyView }: { keyView: KeyView }) {
  const revoke = revokeStateOf(keyView);
  return (
    <div className="flex flex-col items-start gap-1">
      <Badge tone={statusTone[keyView.status as keyof typeof statusTone] ?? "slate"}>{keyView.status}</Badge>
      {revoke === "awaiting_confirmation" ? <span data-testid="revoke-state" className="text-xs text-sky-800">revoked, awaiting provider confirmation</span> : null}
      {revoke === "confirmed" ? <span data-testid="revoke-state" className="text-xs text-emerald-700">confirmed</span> : null}
      {keyView.status === "superseded" ? <span className="text-xs text-amber-800">possibly live: nobody revoked it</span> : null}
    </div>
  );
}

export default async function DistrictPage({ params }: { params: Promise<{ tenantId: string }> }) {
  const actor = await requirePageActor("districts.view");
  const { tenantId } = await params;
  let district;
  try {
    district = await getDistrict({ actor, tenantId: decodeURIComponent(tenantId) });
  } catch (error) {
    if (isAppError(error, "not_found")) notFound();
    throw error;
  }
  const mayRevoke = can(actor, "key.revoke");
  const mayRotate = can(actor, "key.rotate");
  return (
    <>
      <PageHeader title={district.name ?? district.id} description={`${district.id} · highest sequence applied: ${district.highWaterMark}`} />
      <div className="space-y-6">
        <Card title="Keys">
          {district.keys.length === 0 ? (
            <EmptyState title="No keys yet" />
          ) : (
            <Table label="Keys">
              <thead>
                <tr>
                  <Th>Key</Th>
                  <Th>Status</Th>
                  <Th>Scopes</Th>
                  <Th>Version</Th>
                  <Th>Created / rotated / revoked</Th>
                  {mayRevoke || mayRotate ? <Th>Actions</Th> : null}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {district.keys.map((key) => (
                  <tr key={key.id} data-key-id={key.id}>
                    <Td>
                      <div className="font-mono text-xs">{key.id}</div>
                      <div className="font-mono text-xs text-slate-500">{key.prefix ? `${key.prefix}…` : "—"}</div>
                    </Td>
                    <Td>
                      <KeyStatus keyView={key} />
                    </Td>
                    <Td className="text-xs">{key.scopes.length ? key.scopes.join(", ") : "—"}</Td>
                    <Td>{key.version ?? "—"}</Td>
                    <Td className="whitespace-nowrap text-xs">
                      <div>created {formatTime(key.activatedAt ?? key.createdAt)}</div>
                      {key.rotatedAt ? <div>rotated {formatTime(key.rotatedAt)}</div> : null}
                      {key.revokedAt ? <div>revoked {formatTime(key.revokedAt)}</div> : null}
                    </Td>
                    {mayRevoke || mayRotate ? (
                      <Td className="min-w-48 space-y-2">
                        {mayRevoke && key.status !== "revoked" ? (
                          <ActionForm
                            action={revokeKeyAction}
                            hidden={{ keyId: key.id }}
                            submitLabel="Revoke"
                            tone="danger"
                            confirm={{ prompt: `Revoke ${key.id}? Anything using it stops working. This cannot be undone.`, confirmLabel: "Yes, revoke" }}
                          />
                        ) : null}
                        {mayRotate && key.status === "active" ? <ActionForm action={rotateKeyAction} hidden={{ keyId: key.id }} submitLabel="Rotate" tone="secondary" /> : null}
                      </Td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>

        {can(actor, "key.issue") ? (
          <Card title="Issue a new key">
            <ActionForm action={issueKeyAction} hidden={{ tenantId: district.id, requestToken: randomBytes(16).toString("hex") }} submitLabel="Issue key">
              <TextField label="Scopes (space or comma separated)" name="scopes" placeholder="rosters:read grades:read" required />
            </ActionForm>
          </Card>
        ) : null}

        <SequenceGapsCard actor={actor} tenantId={district.id} showDistrict={false} />

        <Card title="Event timeline">
          {district.timeline.length === 0 ? (
            <EmptyState title="No events yet" />
          ) : (
            <ol className="space-y-2">
              {district.timeline.map((event) => (
                <li key={String(event.id)} className="flex flex-wrap items-center gap-2 border-b border-slate-100 pb-2 text-sm">
                  <span className="whitespace-nowrap text-xs text-slate-500">{formatTime(event.receivedAt)}</span>
                  <OutcomeBadge outcome={event.outcome} />
                  <Link className="font-mono text-xs underline" href={`/ledger/${event.id}`}>
                    {event.eventId}
                  </Link>
                  <span>{event.type}</span>
                  {event.keyId ? <span className="font-mono text-xs">{event.keyId}</span> : null}
                  {event.sequence !== null ? <span className="text-xs text-slate-500">seq {String(event.sequence)}</span> : null}
                  {event.reason ? <span className="text-xs text-slate-600">· {event.reason}</span> : null}
                </li>
              ))}
            </ol>
          )}
        </Card>
      </div>
    </>
  );
}
