// The key-lifecycle rules of DESIGN.md invariant 4 as a pure reducer over IN-ORDER history.
// It is the specification the database function keyhook_apply_event is tested against: any
// permutation or duplication of a history, applied through the database, must end in the state
// this model reaches by applying the history once, sorted by sequence.

import type { KeyStatus } from "../vocabulary";

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
