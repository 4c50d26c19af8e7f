import "server-only";
// Issue and rotate are provider operations: we stage the call; the key appears here when the
// provider's key.created / key.rotated webhook arrives, through the same ingest path as any event.
import { prisma, type DbOrTx } from "../db";
import { AppError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { auditActor, tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { lockTenant } from "./tenant-lock";

export type StagedKeyCall = { outboxId: bigint; staged: boolean };

const scopePattern = /^[a-z][a-z0-9_.-]*:[a-z][a-z0-9_.-]*$/;

export async function issueKey(
  options: { actor: Actor; tenantId: string; scopes: string[]; requestToken: string },
  db: DbOrTx = prisma,
): Promise<StagedKeyCall> {
  authorize(options.actor, "key.issue");
  const tenantId = tenantScope(options.actor, options.tenantId);
  const scopes = [...new Set(options.scopes.map((s) => s.trim()).filter(Boolean))];
  if (scopes.length === 0) throw new AppError("bad_request", "Name at least one scope, e.g. rosters:read.");
  const bad = scopes.find((s) => !scopePattern.test(s) || s.length > 100);
  if (bad)
    throw new AppError(
      "bad_request",
      `"${bad.slice(0, 40)}" is not a scope (expected resource:action, e.g. rosters:read).`,
    );
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(options.requestToken))
    throw new AppError("bad_request", "The form expired; reload the page.");
  return db.$transaction(async (tx) => {
    // The tenant lock first (lib/keys/tenant-lock.ts), like every change of a district's keys.
    const tenant = tenantId && (await lockTenant(tx, tenantId)) ? { id: tenantId } : null;
    if (!tenant) throw new AppError("not_found", "not found");
    // The form's one-time token makes a double submit stage one call, not two keys.
    const staged = await enqueueOutbox(
      {
        kind: "key.issue",
        tenantId: tenant.id,
        idempotencyKey: `issue:${tenant.id}:${options.requestToken}`,
        payload: { tenantId: tenant.id, scopes },
      },
      tx,
    );
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "key.issue",
        tenantId: tenant.id,
        outcome: staged.created ? "ok" : "already_requested",
        details: { scopes },
      },
      tx,
    );
    return { outboxId: staged.id, staged: staged.created };
  });
}
