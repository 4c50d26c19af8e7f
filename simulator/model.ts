// What the simulated provider knows. Times are epoch milliseconds (plain JSON in the journal).

export type SimHook = {
  id: string;
  url: string;
  /** The secret every delivery is signed with. */
  secret: string;
  /** During a secret rotation deliveries carry a second signature with the old secret, until… */
  previousSecret: string | null;
  previousSecretValidUntil: number | null;
  createdAt: number;
};

export type SimTenant = {
  id: string;
  /** The last sequence given to one of this tenant's events (docs/design.md, invariant 4). */
  sequence: number;
};

export type SimKeyStatus = "active" | "rotated" | "revoked";

export type SimKey = {
  id: string;
  tenantId: string;
  status: SimKeyStatus;
  prefix: string;
  scopes: string[];
  createdAt: number;
  updatedAt: number;
};

export type SimEvent = {
  id: string;
  tenantId: string;
  type: "key.created" | "key.rotated" | "key.revoked";
  sequence: number;
  keyId: string;
  /** The exact JSON body every delivery of this event sends (signed afresh each time). */
  body: string;
  createdAt: number;
};

/** One event on its way to one hook. */
export type SimMessage = {
  id: string;
  hookId: string;
  eventId: string;
  tenantId: string;
  /** pending: a scheduled attempt is due at nextAttemptAt; failed: the retry schedule is exhausted. */
  status: "pending" | "succeeded" | "failed";
  /** Every HTTP attempt, whatever triggered it; numbers the attempts. */
  attempts: number;
  /** Attempts of the retry schedule only; indexes the schedule. */
  scheduledAttempts: number;
  nextAttemptAt: number | null;
  /** Manual redeliveries asked for and not yet sent (kept so a restart still sends them). */
  manualQueued: number;
  /** Injected: this many first scheduled attempts are signed with a secret the receiver does not hold. */
  badSignatureAttempts?: number;
  createdAt: number;
};

export type SimAttempt = {
  /** Position in the history; the pagination cursor. */
  seq: number;
  id: string;
  messageId: string;
  hookId: string;
  eventId: string;
  tenantId: string;
  attempt: number;
  trigger: "scheduled" | "manual";
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  at: number;
  nextRetryAt: number | null;
  succeeded: boolean;
  /** Which fault, if any, the simulator injected into this attempt. */
  injected: "duplicate" | "lost_response" | "reordered" | "bad_signature" | null;
};

/** A stored answer to an API call with an Idempotency-Key. */
export type SimIdempotentAnswer = {
  scope: string;
  fingerprint: string;
  status: number;
  body: string;
  at: number;
};

export type JournalRecord =
  | { t: "hook"; v: SimHook }
  | { t: "tenant"; v: SimTenant }
  | { t: "key"; v: SimKey }
  | { t: "event"; v: SimEvent }
  | { t: "message"; v: SimMessage }
  | { t: "attempt"; v: SimAttempt }
  | { t: "idempotency"; v: SimIdempotentAnswer };
