// What ingesting one delivery came to, as a domain value. The webhook's edge
// (http/webhook/ingest-response.ts) is the one place that turns it into an HTTP answer and the
// status its receipt records; a local replay reads it directly.
import type { LedgerOutcome } from "../vocabulary";

/** Why a delivery was refused before the claim. Every one but body_aborted is final: a retry fails the same way. */
export type RejectionReason =
  | "method_not_allowed"
  | "body_too_large"
  /** The body was cut off (the client hung up mid-way): a whole retry passes. */
  | "body_aborted"
  | "signature_missing"
  | "signature_expired"
  | "signature_invalid"
  | "not_json"
  | "unstorable_body"
  | "invalid_event"
  | "id_mismatch";

export type IngestResult =
  | { outcome: LedgerOutcome; reason: string | null }
  /** Seen before (same tenant + event id); `firstOutcome` is what its first delivery did. */
  | { outcome: "duplicate"; firstOutcome: string | null }
  /** `error` is safe to show the sender: our words, field names at most, never body content. */
  | ({ outcome: "rejected"; reason: RejectionReason; error: string } & EventIds)
  /**
   * Nothing was committed, or not in time (database down, timeout, deadlock): the sender should
   * retry. `unconfirmed`: the claim's statement ran and wrote this receipt, but its COMMIT was not
   * confirmed in time; it may still land, with a receipt that says 200 unless the answer is
   * written onto it.
   */
  | ({ outcome: "unavailable"; error: string; unconfirmed?: { receiptId: bigint; waitedMs: number } } & EventIds);

/** What a refused delivery told us about itself, for its receipt: known once the body parsed. */
type EventIds = { eventId?: string; tenantId?: string };

export function rejected(reason: RejectionReason, error: string, ids: EventIds = {}): IngestResult {
  return { outcome: "rejected", reason, error, ...ids };
}
