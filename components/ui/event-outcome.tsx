import { Badge, OutcomeBadge } from "./badge";

type OutcomeOfEvent = { outcome: string | null; reason: string | null; confirmsOurRevoke?: boolean };

/**
 * The outcome badge of a ledger event, with its reason. The provider's key.revoked for a key we
 * had asked it to revoke is its confirmation of our revoke, not a surprise: say what it means.
 */
export function EventOutcome({ event }: { event: OutcomeOfEvent }) {
  if (event.confirmsOurRevoke) {
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
