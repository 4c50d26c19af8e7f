import { randomBytes } from "node:crypto";
import Link from "next/link";
import { ActionForm } from "@/components/action-form";
import { Badge } from "@/components/ui/badge";
import { EventOutcome } from "@/components/ui/event-outcome";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { TextField } from "@/components/ui/fields";
import { formatNumber, formatTime, plural } from "@/components/ui/format";
import { KeysetPager } from "@/components/ui/keyset-pager";
import { PageHeader } from "@/components/ui/page-header";
import { askPlatformAdmin } from "@/components/ui/role-names";
import { Table, Td, Th } from "@/components/ui/table";
import { can } from "@/lib/core/auth/permissions";
import {
  getDistrict,
  type DistrictDetail,
  RECENT_KEY_MINUTES,
  revokeStateOf,
  type KeyView,
} from "@/lib/views/districts/get-district";
import { TERMINAL_KEY_STATUSES, type KeyStatus, type TerminalKeyStatus } from "@/lib/core/vocabulary";
import { orNotFound } from "../../../_lib/or-not-found";
import { requirePageActor } from "../../../_lib/session";
import { SequenceGapsCard } from "../../_components/sequence-gaps-card";
import { issueKeyAction, revokeKeyAction, rotateKeyAction } from "./actions";
import { ProviderRequestsCard } from "./provider-requests";

export const metadata = { title: "District · Keyhook" };

const statusTone = {
  active: "green",
  superseded: "amber",
  rotated: "slate",
  revoked: "red",
} as const satisfies Record<KeyStatus, string>;

function KeyStatus({ keyView }: { keyView: KeyView }) {
  const revoke = revokeStateOf(keyView);
  return (
    <div className="flex flex-col items-start gap-1">
      <Badge tone={statusTone[keyView.status as keyof typeof statusTone] ?? "slate"}>{keyView.status}</Badge>
      {revoke === "awaiting_confirmation" ? (
        <span data-testid="revoke-state" className="text-xs text-sky-800">
          awaiting the provider&apos;s confirmation (revoke sent {formatTime(keyView.revokeRequestedAt)})
        </span>
      ) : null}
      {revoke === "confirmed" ? (
        <span data-testid="revoke-state" className="text-xs text-emerald-700">
          {keyView.revokeRequestedAt ? "confirmed by the provider" : "revoked by the provider"} at{" "}
          {formatTime(keyView.revokeConfirmedAt)}
        </span>
      ) : null}
      {keyView.status === "rotated" && keyView.rotatedAt ? (
        <span className="text-xs text-slate-600">replaced at {formatTime(keyView.rotatedAt)}</span>
      ) : null}
      {keyView.status === "superseded" && keyView.arrivedStale ? (
        <span className="text-xs text-amber-800" data-testid="arrived-stale">
          arrived stale (sequence {keyView.arrivedStale.sequence}, not above this district&apos;s newest activation):
          never active here, possibly live at the provider
        </span>
      ) : keyView.status === "superseded" ? (
        <span className="text-xs text-amber-800">possibly live: nobody revoked it</span>
      ) : null}
    </div>
  );
}

export default async function DistrictPage({
  params,
  searchParams,
}: {
  params: Promise<{ tenantId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requirePageActor("districts.view");
  const { tenantId } = await params;
  const query = await searchParams;
  const inactiveStatus = (TERMINAL_KEY_STATUSES as readonly string[]).includes(String(query.keys))
    ? (query.keys as TerminalKeyStatus)
    : undefined;
  const inactiveCursor = typeof query.cursor === "string" ? query.cursor : undefined;
  const district = await orNotFound(() =>
    getDistrict({ actor, tenantId: decodeURIComponent(tenantId), inactiveStatus, inactiveCursor }),
  );
  const mayRevoke = can(actor, "key.revoke");
  const activeKey = district.currentKeys.find((key) => key.status === "active") ?? null;
  const askAdmin = askPlatformAdmin(district.platformAdmins);
  const basePath = `/districts/${encodeURIComponent(district.id)}`;
  return (
    <>
      <PageHeader
        title={district.name ?? district.id}
        description={
          <span data-testid="district-sequences">
            {district.id}
            {/* Sequences are the provider's numbering: staff reason with them, a district admin does not. */}
            {actor.role === "district_admin"
              ? ""
              : district.highWaterMark > 0n
                ? `${district.highestSequenceSeen !== null ? ` · latest event: sequence ${district.highestSequenceSeen}` : ""} · newest key activation: sequence ${district.highWaterMark} (an older issue or rotation is stale)`
                : " · no key activated yet"}
          </span>
        }
      />
      <div className="space-y-6">
        <Card title="Keys">
          <p className="mb-3 text-xs text-slate-600" data-testid="key-counts">
            {keyCountsText(district.keyCounts)}
          </p>
          {district.currentKeys.some((key) => key.recent) ? (
            <p className="mb-3 text-xs text-slate-600">
              Keys rotated or revoked in the last {RECENT_KEY_MINUTES} minutes stay here, then move to the inactive keys
              below.
            </p>
          ) : null}
          {district.currentKeys.length === 0 ? (
            <EmptyState title="No active key">
              {district.inactiveCount
                ? "Every key of this district is deactivated."
                : "Keys appear here when their webhook arrives."}
            </EmptyState>
          ) : (
            <>
              {district.currentKeys.some((key) => key.status === "active") ? null : (
                <p className="mb-3 text-sm font-medium text-slate-700" data-testid="no-active-key">
                  No active key
                  {district.currentKeys.some((key) => key.status === "superseded")
                    ? ": a superseded key below may still work until someone revokes it."
                    : ": every key of this district is deactivated."}
                </p>
              )}
              <KeysTable
                label="Keys"
                keys={district.currentKeys}
                actions={
                  mayRevoke
                    ? { districtId: district.id, askPlatformAdmin: askAdmin, mayIssue: can(actor, "key.issue") }
                    : undefined
                }
              />
            </>
          )}
          {district.inactiveCount > 0 ? (
            // Open when filtering or paging it, so the next page does not land on a closed list.
            <details
              className="mt-4 rounded-md border border-slate-200"
              open={typeof query.keys === "string" || inactiveCursor !== undefined}
              data-testid="inactive-keys"
            >
              <summary className="cursor-pointer px-3 py-2 text-sm font-medium text-slate-700">
                {plural(district.inactiveCount, "inactive key")} (rotated or revoked: already deactivated, nothing to
                do)
              </summary>
              <div className="border-t border-slate-200 px-1 pb-2">
                <nav aria-label="Inactive keys by status" className="flex flex-wrap gap-1 px-2 pt-2 text-sm">
                  {[undefined, ...TERMINAL_KEY_STATUSES].map((status) => {
                    const count = status ? district.inactiveByStatus[status] : district.inactiveCount;
                    const selected = status === inactiveStatus;
                    return (
                      <Link
                        key={status ?? "all"}
                        href={status ? `${basePath}?keys=${status}` : `${basePath}?keys=all`}
                        aria-current={selected ? "page" : undefined}
                        className={`rounded-md px-2 py-1 ${selected ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-100"}`}
                      >
                        {status ?? "all"} ({formatNumber(count)})
                      </Link>
                    );
                  })}
                </nav>
                {district.inactiveKeys.length ? (
                  <KeysTable label="Inactive keys" keys={district.inactiveKeys} />
                ) : (
                  <p className="px-2 py-3 text-sm text-slate-600">No {inactiveStatus ?? "inactive"} keys here.</p>
                )}
                <div className="px-2">
                  <KeysetPager
                    basePath={basePath}
                    query={new URLSearchParams({ keys: inactiveStatus ?? "all" }).toString()}
                    cursorParam={inactiveCursor}
                    nextCursor={district.nextInactiveCursor}
                  />
                </div>
              </div>
            </details>
          ) : null}
        </Card>

        <NewKeyCard
          district={district}
          activeKey={activeKey}
          mayIssue={can(actor, "key.issue")}
          mayRotate={can(actor, "key.rotate")}
          isDistrictAdmin={actor.role === "district_admin"}
          askPlatformAdmin={askAdmin}
        />

        <ProviderRequestsCard requests={district.providerRequests} highWaterMark={district.highWaterMark} />

        <SequenceGapsCard actor={actor} tenantId={district.id} showDistrict={false} />

        <Card title="Event timeline">
          {district.timeline.length === 0 ? (
            <EmptyState title="No events yet" />
          ) : (
            <ol className="space-y-2" aria-label="Event timeline">
              {district.timeline.map((event) => (
                <li
                  key={String(event.id)}
                  data-event-id={event.eventId}
                  className="flex flex-wrap items-center gap-x-2 gap-y-1 border-b border-slate-100 pb-2 text-sm"
                >
                  <span className="whitespace-nowrap text-xs text-slate-500">{formatTime(event.receivedAt)}</span>
                  <EventOutcome event={event} />
                  <Link className="break-all font-mono text-xs underline" href={`/ledger/${event.id}`}>
                    {event.eventId}
                  </Link>
                  <span>{event.type}</span>
                  {event.keyId ? <span className="break-all font-mono text-xs">{event.keyId}</span> : null}
                  {event.sequence !== null ? (
                    <span className="text-xs text-slate-500">seq {String(event.sequence)}</span>
                  ) : null}
                </li>
              ))}
            </ol>
          )}
        </Card>
      </div>
    </>
  );
}

const countOrder: readonly string[] = ["active", "superseded", "revoked", "rotated"] satisfies KeyStatus[];

/** "1 active · 71 revoked · 428 rotated": every status the district has keys in. */
function keyCountsText(counts: Record<string, number>): string {
  const statuses = Object.keys(counts).sort(
    (a, b) => (countOrder.indexOf(a) + 1 || 99) - (countOrder.indexOf(b) + 1 || 99) || a.localeCompare(b),
  );
  const total = statuses.reduce((sum, status) => sum + counts[status]!, 0);
  if (total === 0) return "No keys yet.";
  return `${plural(total, "key")}: ${statuses.map((status) => `${formatNumber(counts[status]!)} ${status}`).join(" · ")}`;
}

type RowActions = { districtId: string; askPlatformAdmin: string; mayIssue: boolean };

function KeysTable({ label, keys, actions }: { label: string; keys: KeyView[]; actions?: RowActions }) {
  const withActions = actions !== undefined;
  return (
    <Table label={label} stack>
      <thead>
        <tr>
          <Th>Key</Th>
          <Th>Status</Th>
          <Th>Scopes</Th>
          <Th>Version</Th>
          <Th>Created / rotated / revoked</Th>
          {withActions ? <Th>Actions</Th> : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {keys.map((key) => (
          <tr key={key.id} data-key-id={key.id} data-key-status={key.status}>
            <Td>
              <div className="break-all font-mono text-xs">{key.id}</div>
              <div className="font-mono text-xs text-slate-500">{key.prefix ? `${key.prefix}…` : "—"}</div>
            </Td>
            <Td label="Status">
              <KeyStatus keyView={key} />
            </Td>
            <Td label="Scopes" className="text-xs">
              {key.scopes.length ? key.scopes.join(", ") : "—"}
            </Td>
            <Td label="Version">{key.version ?? "—"}</Td>
            <Td label="When" className="text-xs">
              <KeyTime label="created" at={key.activatedAt ?? key.createdAt} />
              {key.rotatedAt ? <KeyTime label="rotated" at={key.rotatedAt} /> : null}
              {key.revokedAt ? <KeyTime label="revoked" at={key.revokedAt} /> : null}
            </Td>
            {actions ? (
              <Td className="md:min-w-40">
                <KeyActions keyView={key} actions={actions} />
              </Td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

// A label, a date and a time that wrap between them, never inside one: the row fits a phone.
function KeyTime({ label, at }: { label: string; at: Date }) {
  const [date, time] = formatTime(at).split(" ", 2);
  return (
    <div>
      {label} <span className="whitespace-nowrap">{date}</span> <span className="whitespace-nowrap">{time} UTC</span>
    </div>
  );
}

// Revoke only: rotate replaces the district's key and lives with issue below, away from here.
// The revoke form stays in place once the key is revoked (a note instead of its button), so its
// answer stays on the row that was clicked. The confirmation of the district's active key says
// the district is left without one, and who can issue the next.
function KeyActions({ keyView, actions }: { keyView: KeyView; actions: RowActions }) {
  const revoke = revokeStateOf(keyView);
  const done =
    revoke === "awaiting_confirmation" ? (
      <p className="text-xs text-slate-500">
        Revoke sent; the provider&apos;s confirmation shows here when it arrives.
      </p>
    ) : keyView.status === "revoked" || keyView.status === "rotated" ? (
      <p className="text-xs text-slate-500">Deactivated: nothing to do.</p>
    ) : undefined;
  const leftWithout =
    keyView.status === "active"
      ? actions.mayIssue
        ? ` ${actions.districtId} will be left without an active key until a new one is issued (Issue a new key, below).`
        : ` ${actions.districtId} will be left without a key, and only a platform admin can issue a new one: ${actions.askPlatformAdmin}.`
      : "";
  return (
    <div className="flex flex-wrap gap-2 md:flex-col">
      <ActionForm
        action={revokeKeyAction}
        hidden={{ keyId: keyView.id }}
        submitLabel="Revoke"
        tone="danger"
        done={done}
        confirm={{
          prompt: `Revoke ${keyView.id}? Anything using it stops working.${leftWithout} This cannot be undone.`,
          confirmLabel: "Yes, revoke",
        }}
      />
    </div>
  );
}

/**
 * How this district gets a new key, offering only what the provider accepts: with an active key,
 * rotating it (the provider allows one active key at a time); without one, issuing. Confirmed like
 * a revoke, since rotating ends the key in use. A district admin, who may do neither, is told
 * whom to ask.
 */
function NewKeyCard({
  district,
  activeKey,
  mayIssue,
  mayRotate,
  isDistrictAdmin,
  askPlatformAdmin,
}: {
  district: DistrictDetail;
  activeKey: KeyView | null;
  mayIssue: boolean;
  mayRotate: boolean;
  isDistrictAdmin: boolean;
  askPlatformAdmin: string;
}) {
  const inFlight = district.providerRequests.find(
    (request) =>
      (request.kind === "key.issue" || request.kind === "key.rotate") &&
      (request.state === "pending" || (request.state === "sent" && !request.madeKey)),
  );
  if (isDistrictAdmin)
    return (
      <Card key="help" title="A new key">
        <p className="text-sm text-slate-700" data-testid="new-key-help">
          {activeKey
            ? `To replace ${activeKey.id}, or if it leaked, a platform admin rotates it: ${askPlatformAdmin}. You can revoke it yourself above, which leaves the district without a key until they issue one.`
            : `This district has no active key. Only a platform admin can issue one: ${askPlatformAdmin}.`}
        </p>
      </Card>
    );
  if (activeKey && mayRotate)
    return (
      <Card key="rotate" title="Replace the key">
        <p className="mb-3 text-sm text-slate-700" data-testid="new-key-help">
          {activeKey.id} is this district&apos;s active key. The provider allows one active key at a time, so a new key
          comes by rotating this one: the provider issues its successor and deactivates {activeKey.id} at once.
        </p>
        <ActionForm
          action={rotateKeyAction}
          hidden={{ keyId: activeKey.id }}
          submitLabel={`Rotate ${activeKey.id}`}
          tone="secondary"
          disabledReason={inFlight ? inFlightReason(inFlight) : undefined}
          confirm={{
            prompt: `Rotate ${activeKey.id}? The provider issues a new key and deactivates ${activeKey.id} at once: anything still using it stops working until it is given the new key. The new key appears here when the provider's webhook arrives; its secret is handed out by the provider, never shown here.`,
            confirmLabel: "Yes, rotate",
          }}
        />
      </Card>
    );
  const possiblyLive = district.currentKeys.find((key) => key.status === "superseded");
  if (!activeKey && mayIssue)
    return (
      <Card key="issue" title="Issue a new key">
        <ActionForm
          action={issueKeyAction}
          hidden={{ tenantId: district.id, requestToken: randomBytes(16).toString("hex") }}
          submitLabel="Issue key"
          disabledReason={
            inFlight
              ? inFlightReason(inFlight)
              : possiblyLive
                ? `${possiblyLive.id} may still be active at the provider (superseded here, never revoked), and the provider allows one active key at a time: revoke it above first, then issue.`
                : undefined
          }
        >
          <TextField
            label="Scopes (space or comma separated)"
            name="scopes"
            placeholder="rosters:read grades:read"
            required
          />
        </ActionForm>
      </Card>
    );
  return null;
}

function inFlightReason(request: { kind: string; requestedAt: Date }): string {
  return `A new key was requested at ${formatTime(request.requestedAt)} (${request.kind === "key.rotate" ? "rotation" : "issue"}); wait for it (Requests to the provider, below).`;
}
