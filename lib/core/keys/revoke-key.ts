import "server-only";
// Revoke from the browser (the laptop was stolen): applied locally at once, the provider call is
// staged in the outbox in the SAME transaction, and the provider's key.revoked webhook later
// confirms it (the ingest SQL sets revoke_confirmed_at).
import { prisma, type DbOrTx } from "../db/client";
import { AppError, limitedText } from "../errors";
import { recordAudit } from "../audit/record-audit";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { auditActor, tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { deactivateKey } from "./deactivate-key";
import { lockTenantOfKey } from "./tenant-lock";

type RevokeKeyResult = { keyId: string; tenantId: string; outcome: "revoked" | "already_revoked" };

export async function revokeKey(
  options: { actor: Actor; keyId: string; reason?: string },
  db: DbOrTx = prisma,
): Promise<RevokeKeyResult> {
  authorize(options.actor, "key.revoke");
  const scope = tenantScope(options.actor);
  const reason = limitedText(options.reason, 500, "reason");
  return db.$transaction(async (tx) => {
    // The tenant lock first, the key read after it (lib/core/keys/tenant-lock.ts): an ingest of this
    // district in flight commits before we read, and none starts before we commit.
    const tenantId = await lockTenantOfKey(tx, { keyId: options.keyId, tenantScope: scope });
    const key = tenantId === null ? null : await tx.apiKey.findFirst({ where: { id: options.keyId, tenantId } });
    if (!key) throw new AppError("not_found", "not found");
    // A key already revoked (by a concurrent revoke, or the provider's webhook) is left as it is.
    const revoked = await deactivateKey(
      { tenantId: key.tenantId, keyId: key.id, to: "revoked", at: new Date(), requested: true },
      tx,
    );
    const outcome = revoked ? "revoked" : "already_revoked";
    if (outcome === "revoked") {
      await enqueueOutbox(
        {
          kind: "key.revoke",
          tenantId: key.tenantId,
          idempotencyKey: `revoke:${key.id}`,
          payload: { tenantId: key.tenantId, keyId: key.id },
          requestedBy: auditActor(options.actor),
        },
        tx,
      );
    }
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "key.revoke",
        tenantId: key.tenantId,
        target: key.id,
        outcome: outcome === "revoked" ? "ok" : "already_revoked",
        details: { previousStatus: key.status, ...(reason ? { reason } : {}) },
      },
      tx,
    );
    return { keyId: key.id, tenantId: key.tenantId, outcome };
  });
}
