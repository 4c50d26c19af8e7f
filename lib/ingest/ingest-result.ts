// What ingesting one delivery came to, as a domain value. ingest-response.ts is the one place
// that turns it into an HTTP answer (and the status a receipt records); a local replay reads it
// directly.

/** The claim was made (or found): what the ordering rules decided. */
export type ClaimOutcome = "applied" | "stale" | "quarantined" | "ignored";

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
  | { outcome: ClaimOutcome; reason: string | null }
  /** Seen before (same tenant + event id); `firstOutcome` is what its first delivery did. */
  | { outcome: "duplicate"; firstOutcome: string | null }
  /** `error` is safe to show the sender: our words, field names at most, never body content. */
  | { outcome: "rejected"; reason: RejectionReason; error: string }
  /** Nothing was committed (database down, timeout, deadlock): the sender should retry. */
  | { outcome: "unavailable"; error: string };
