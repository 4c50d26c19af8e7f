import "server-only";
// Rotation is a provider operation: we stage the call; the new key appears when the provider's
// key.rotated webhook arrives. One staged rotation per key (idempotency key rotate:<keyId>).
import { prisma, type DbOrTx } from "../db/client";
import { AppError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { auditActor, tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import type { StagedKeyCall } from "./issue-key";
import { lockTenantOfKey } from "./tenant-lock";

export async function rotateKey(
  options: { actor: Actor; keyId: string },
  db: DbOrTx = prisma,
): Promise<StagedKeyCall & { tenantId: string }> {
  authorize(options.actor, "key.rotate");
  const scope = tenantScope(options.actor);
  return db.$transaction(async (tx) => {
    // The tenant lock first (lib/core/keys/tenant-lock.ts): the status checked below is the last committed one.
    const tenantId = await lockTenantOfKey(tx, { keyId: options.keyId, tenantScope: scope });
    const key = tenantId === null ? null : await tx.apiKey.findFirst({ where: { id: options.keyId, tenantId } });
    if (!key) throw new AppError("not_found", "not found");
    if (key.status !== "active")
      throw new AppError("conflict", `Only an active key can be rotated; ${key.id} is ${key.status}.`);
    const staged = await enqueueOutbox(
      {
        kind: "key.rotate",
        tenantId: key.tenantId,
        idempotencyKey: `rotate:${key.id}`,
        payload: { tenantId: key.tenantId, keyId: key.id },
        requestedBy: auditActor(options.actor),
      },
      tx,
    );
    // "requested": the provider's own answer is appended when the worker hears it (process-outbox.ts).
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "key.rotate",
        tenantId: key.tenantId,
        target: key.id,
        outcome: staged.created ? "requested" : "already_requested",
        details: { outbox_id: staged.id.toString() },
      },
      tx,
    );
    return { outboxId: staged.id, staged: staged.created, tenantId: key.tenantId };
  });
}
