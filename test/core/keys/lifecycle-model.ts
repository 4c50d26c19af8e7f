// The key-lifecycle rules (docs/design.md, invariant 4) as pure functions, the specification the
// database function keyhook_apply_event is tested against (test/core/ingest/ordering.integration.test.ts):
//   - replayInOrder: where a valid history ends, applied once and sorted by sequence. Any
//     permutation or duplication of it, delivered through the database, must end there too;
//   - applyDelivery: what one delivery, in arrival order, answers and leaves behind, for every
//     outcome, quarantine and tombstones included (below).

import {
  EVENT_TYPES,
  type EventType,
  type IngestOutcome,
  type KeyStatus,
  type LedgerOutcome,
} from "../../../lib/core/vocabulary";

export type { KeyStatus };

export type LifecycleEvent =
  | { type: "key.created"; keyId: string; sequence: number }
  | { type: "key.rotated"; keyId: string; previousKeyId: string; sequence: number }
  | { type: "key.revoked"; keyId: string; sequence: number };

export type TenantKeyState = { highWaterMark: number; keys: Record<string, KeyStatus> };

export const emptyTenantState = (): TenantKeyState => ({ highWaterMark: 0, keys: {} });

function deactivate(state: TenantKeyState, keyId: string, to: "rotated" | "revoked"): void {
  const current = state.keys[keyId];
  state.keys[keyId] = current === "revoked" ? "revoked" : to;
}

function activate(state: TenantKeyState, keyId: string, sequence: number): void {
  state.highWaterMark = Math.max(state.highWaterMark, sequence);
  for (const [id, status] of Object.entries(state.keys)) {
    if (id !== keyId && status === "active") state.keys[id] = "superseded";
  }
  const current = state.keys[keyId];
  if (current !== "revoked" && current !== "rotated") state.keys[keyId] = "active";
}

/** Applies one event to a tenant's state, assuming events arrive in sequence order. */
export function applyInOrder(state: TenantKeyState, event: LifecycleEvent): TenantKeyState {
  const next: TenantKeyState = { highWaterMark: state.highWaterMark, keys: { ...state.keys } };
  if (event.type === "key.revoked") deactivate(next, event.keyId, "revoked");
  if (event.type === "key.rotated") deactivate(next, event.previousKeyId, "rotated");
  if (event.type !== "key.revoked") activate(next, event.keyId, event.sequence);
  return next;
}

export function replayInOrder(events: readonly LifecycleEvent[]): TenantKeyState {
  return [...events].sort((a, b) => a.sequence - b.sequence).reduce(applyInOrder, emptyTenantState());
}

// ---------------------------------------------------------------------------------------------
// The model of one delivery, in ARRIVAL order, across tenants: what keyhook_apply_event answers
// and leaves behind, every outcome included (duplicate, ignored, quarantined, stale, applied),
// with the tombstones a deactivation of an unknown key leaves and the "superseded" record of a
// stale activation. The property tests deliver random traffic through the real handler and
// database and compare every answer and the final rows with this model; for valid histories
// they also check that it converges to replayInOrder, whatever the arrival order.

/** One delivery as the ingest sees it. Any type: an unknown one is claimed and ignored. */
export type ModelDelivery = {
  tenantId: string;
  eventId: string;
  type: string;
  keyId: string;
  previousKeyId?: string | null;
  sequence: number;
  /** The key's prefix the event states (activations only). */
  prefix?: string | null;
};

export type ModelKey = { tenantId: string; status: KeyStatus; prefix: string | null };

export type ModelDatabase = {
  /** The ledger's outcome per claimed `tenant|event id`. */
  claims: Record<string, LedgerOutcome>;
  highWaterMarks: Record<string, number>;
  /** Every key row, by key id (ids are global: the same id under another tenant is quarantined). */
  keys: Record<string, ModelKey>;
};

export type ModelAnswer = {
  outcome: IngestOutcome;
  /** For a duplicate: the ledger outcome of the first delivery of the event. */
  firstOutcome: LedgerOutcome | null;
  /** Why an event was quarantined, or what a deactivation left when the key was unknown. */
  note:
    | "key of another tenant"
    | "previous key of another tenant"
    | "rotation names one key twice"
    | "prefix contradicts ours"
    | "tombstone"
    | null;
};

export const emptyDatabase = (): ModelDatabase => ({ claims: {}, highWaterMarks: {}, keys: {} });

const isKnownType = (type: string): type is EventType => (EVENT_TYPES as readonly string[]).includes(type);

/** Applies one delivery the way keyhook_apply_event does (the steps are numbered as there). */
export function applyDelivery(
  database: ModelDatabase,
  delivery: ModelDelivery,
): { database: ModelDatabase; answer: ModelAnswer } {
  const next: ModelDatabase = {
    claims: { ...database.claims },
    highWaterMarks: { ...database.highWaterMarks },
    keys: { ...database.keys },
  };
  const answer = (
    outcome: IngestOutcome,
    note: ModelAnswer["note"] = null,
  ): { database: ModelDatabase; answer: ModelAnswer } => {
    if (outcome !== "duplicate") next.claims[claimKey] = outcome;
    return { database: next, answer: { outcome, firstOutcome: null, note } };
  };

  // 1. The claim: an event id seen before for this tenant changes nothing.
  const claimKey = `${delivery.tenantId}|${delivery.eventId}`;
  const first = database.claims[claimKey];
  if (first !== undefined) return { database, answer: { outcome: "duplicate", firstOutcome: first, note: null } };
  if (!isKnownType(delivery.type)) return answer("ignored");

  // 2. The tenant exists from its first authentic known event on.
  const tenantId = delivery.tenantId;
  const highWaterMark = next.highWaterMarks[tenantId] ?? 0;
  next.highWaterMarks[tenantId] = highWaterMark;

  // 3. The keys the event names, looked up by id alone.
  const key = database.keys[delivery.keyId];
  const previousId = delivery.previousKeyId ?? null;
  const previous = previousId === null ? undefined : database.keys[previousId];
  const prefix = delivery.prefix ?? null;
  if (key && key.tenantId !== tenantId) return answer("quarantined", "key of another tenant");
  if (previous && previous.tenantId !== tenantId) return answer("quarantined", "previous key of another tenant");
  if (delivery.type === "key.rotated" && previousId === delivery.keyId)
    return answer("quarantined", "rotation names one key twice");
  if (delivery.type !== "key.revoked" && key && key.prefix !== null && prefix !== null && key.prefix !== prefix) {
    return answer("quarantined", "prefix contradicts ours");
  }

  // 4. Deactivations apply at once and are terminal; an unknown key gets a tombstone.
  let note: ModelAnswer["note"] = null;
  if (delivery.type === "key.revoked") {
    if (key) next.keys[delivery.keyId] = { ...key, status: "revoked" };
    else {
      next.keys[delivery.keyId] = { tenantId, status: "revoked", prefix: null };
      note = "tombstone";
    }
    return answer("applied", note);
  }
  if (delivery.type === "key.rotated" && previousId !== null) {
    if (previous)
      next.keys[previousId] = { ...previous, status: previous.status === "revoked" ? "revoked" : "rotated" };
    else {
      next.keys[previousId] = { tenantId, status: "rotated", prefix: null };
      note = "tombstone";
    }
  }

  // 5. Activations obey the order.
  if (delivery.sequence <= highWaterMark) {
    // Activates nothing; a key never seen is recorded as superseded, for a human to look at.
    if (!key) next.keys[delivery.keyId] = { tenantId, status: "superseded", prefix };
    return answer("stale", note);
  }
  next.highWaterMarks[tenantId] = delivery.sequence;
  for (const [id, other] of Object.entries(next.keys)) {
    if (other.tenantId === tenantId && other.status === "active" && id !== delivery.keyId)
      next.keys[id] = { ...other, status: "superseded" };
  }
  if (!key) next.keys[delivery.keyId] = { tenantId, status: "active", prefix };
  else if (key.status === "revoked" || key.status === "rotated")
    next.keys[delivery.keyId] = { ...key, prefix: key.prefix ?? prefix };
  else next.keys[delivery.keyId] = { ...key, status: "active", prefix: prefix ?? key.prefix };
  return answer("applied", note);
}

/** The answers to a whole arrival order, and the database it leaves. */
export function applyDeliveries(deliveries: readonly ModelDelivery[]): {
  database: ModelDatabase;
  answers: ModelAnswer[];
} {
  const answers: ModelAnswer[] = [];
  let database = emptyDatabase();
  for (const delivery of deliveries) {
    const step = applyDelivery(database, delivery);
    database = step.database;
    answers.push(step.answer);
  }
  return { database, answers };
}
