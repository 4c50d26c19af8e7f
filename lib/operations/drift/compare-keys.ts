// The comparison itself, without a database: a page of the provider's keys against our rows for
// the same ids. A difference is always about a LIVE credential on one side — a key both sides
// consider dead (revoked here, rotated there) is not worth a human.
//   drift_provider_active: the provider says active; we have no such key, or hold it dead.
//   drift_local_active:    we hold it live (active or superseded); the provider says rotated or
//                          revoked, or (found at the end of the district) does not list it at all.
import type { DriftKind } from "../alerts/alert-kinds";
import type { ProviderKey } from "../provider/client";
import { isLiveKeyStatus } from "../../core/vocabulary";

export type LocalKey = {
  id: string;
  status: string;
  prefix: string | null;
  activatedSeq: bigint | null;
  deactivatedSeq: bigint | null;
  lastEventId: string | null;
  revokeRequestedAt: Date | null;
  updatedAt: Date;
};

export type DriftDifference = {
  kind: DriftKind;
  tenantId: string;
  keyId: string;
  provider: ProviderKey | null;
  ours: LocalKey | null;
};

export function comparePage(
  tenantId: string,
  providerKeys: readonly ProviderKey[],
  ours: ReadonlyMap<string, LocalKey>,
): { differences: DriftDifference[]; liveSeen: string[] } {
  const differences: DriftDifference[] = [];
  const liveSeen: string[] = [];
  for (const theirs of providerKeys) {
    const local = ours.get(theirs.id) ?? null;
    const liveHere = local !== null && isLiveKeyStatus(local.status);
    if (liveHere) liveSeen.push(theirs.id);
    if (theirs.status === "active" && !liveHere)
      differences.push({ kind: "drift_provider_active", tenantId, keyId: theirs.id, provider: theirs, ours: local });
    else if (theirs.status !== "active" && liveHere)
      differences.push({ kind: "drift_local_active", tenantId, keyId: theirs.id, provider: theirs, ours: local });
  }
  return { differences, liveSeen };
}

/** Our live keys the provider never listed: unknown there. */
export function unlistedLiveKeys(
  tenantId: string,
  liveHere: readonly LocalKey[],
  liveSeen: ReadonlySet<string>,
): DriftDifference[] {
  return liveHere
    .filter((key) => !liveSeen.has(key.id))
    .map((key) => ({ kind: "drift_local_active" as const, tenantId, keyId: key.id, provider: null, ours: key }));
}

/** Same fingerprint = the same difference as before (an "explained" one stays explained). */
export function fingerprintOf(difference: DriftDifference): string {
  return `${difference.provider?.status ?? "unknown"}|${difference.ours?.status ?? "unknown"}`;
}

export function describeDifference(difference: DriftDifference): string {
  const there = difference.provider ? difference.provider.status : "unknown";
  const here = difference.ours ? difference.ours.status : "unknown";
  return difference.kind === "drift_provider_active"
    ? `${difference.keyId} is active at the provider but ${here === "unknown" ? "unknown" : here} here`
    : `${difference.keyId} is ${here} here but ${there === "unknown" ? "not listed" : there} at the provider`;
}
