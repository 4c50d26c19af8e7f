import "server-only";
// The one TypeScript writer of a key's end (the ingest's is keyhook_apply_event): a key becomes
// rotated or revoked, and a terminal key is never written back to life. The caller holds the
// district's tenant lock (lib/core/keys/tenant-lock.ts) and has read the key after it; the status
// guard below re-checks on the row it updates, and the api_keys_terminal_status trigger refuses
// any write that would revive a terminal key, whoever makes it.
import type { Tx } from "../db/client";
import { TERMINAL_KEY_STATUSES, type TerminalKeyStatus } from "../vocabulary";

type KeyDeactivation = {
  tenantId: string;
  keyId: string;
  to: TerminalKeyStatus;
  at: Date;
  /** A revoke we asked the provider for (its key.revoked webhook confirms it later). */
  requested?: boolean;
  /** The provider already says so: nothing to confirm. */
  confirmed?: boolean;
};

/** True when the key changed; false when it was already there (revoked outranks rotated). */
export async function deactivateKey(change: KeyDeactivation, tx: Tx): Promise<boolean> {
  const { at } = change;
  const updated = await tx.apiKey.updateMany({
    where: {
      id: change.keyId,
      tenantId: change.tenantId,
      status: { notIn: change.to === "revoked" ? ["revoked"] : [...TERMINAL_KEY_STATUSES] },
    },
    data:
      change.to === "rotated"
        ? { status: "rotated", rotatedAt: at, updatedAt: at }
        : {
            status: "revoked",
            revokedAt: at,
            updatedAt: at,
            ...(change.requested ? { revokeRequestedAt: at } : {}),
            ...(change.confirmed ? { revokeConfirmedAt: at } : {}),
          },
  });
  return updated.count === 1;
}
