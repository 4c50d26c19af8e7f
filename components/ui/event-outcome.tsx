import { Badge, OutcomeBadge } from "./badge";

// The provider's key.revoked for a key we had already revoked (our own revoke, sent through the
// outbox) is its confirmation of that revoke, not a surprise: the function records it as applied
// with the reason "key was already revoked" (prisma/sql/keyhook_apply_event.sql). Say what it means.
const REVOKE_CONFIRMATION_REASON = "key was already revoked";

export type OutcomeOfEvent = { type: string; outcome: string | null; reason: string | null };

export function isRevokeConfirmation(event: OutcomeOfEvent): boolean {
  return event.type === "key.revoked" && event.outcome === "applied" && event.reason === REVOKE_CONFIRMATION_REASON;
}

/** The outcome badge of a ledger event, with its reason (or what a revoke confirmation means). */
export function EventOutcome({ event }: { event: OutcomeOfEvent }) {
  if (isRevokeConfirmation(event)) {
    return (
      <>
        <Badge tone="green">confirmed</Badge>{" "}
        <span className="text-xs text-slate-600">the provider confirmed the revoke</span>
      </>
    );
  }
  return (
    <>
      <OutcomeBadge outcome={event.outcome} />{" "}
      {event.reason ? <span className="text-xs text-slate-600">{event.reason}</span> : null}
    </>
  );
}
