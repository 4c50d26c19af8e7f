import "server-only";
// Issue and rotate are provider operations: we stage the call; the key appears here when the
// provider's key.created / key.rotated webhook arrives, through the same ingest path as any event.
// What the provider would refuse is refused here first, in words the person can act on: a second
// key while one is active (the provider allows one per district: rotate it instead) or may be (a
// superseded key nobody revoked: revoke it first), or a second request while one is on its way. The audit row says "requested"; the provider's own answer is
// appended when the worker hears it (lib/operations/outbox/process-outbox.ts).
import { prisma, type DbOrTx } from "../db/client";
import { AppError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { auditActor, tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { lockTenant } from "./tenant-lock";
import { keyCallInFlight } from "./key-calls-in-flight";

export type StagedKeyCall = { outboxId: bigint; staged: boolean };

const scopePattern = /^[a-z][a-z0-9_.-]*:[a-z][a-z0-9_.-]*$/;
const MAX_SCOPE_LENGTH = 100;

export async function issueKey(
  options: { actor: Actor; tenantId: string; scopes: string[]; requestToken: string },
  db: DbOrTx = prisma,
): Promise<StagedKeyCall> {
  authorize(options.actor, "key.issue");
  const tenantId = tenantScope(options.actor, options.tenantId);
  const scopes = [...new Set(options.scopes.map((s) => s.trim()).filter(Boolean))];
  if (scopes.length === 0)
    throw new AppError("bad_request", "Name at least one scope, e.g. rosters:read.", { field: "scopes" });
  const bad = scopes.find((s) => !scopePattern.test(s) || s.length > MAX_SCOPE_LENGTH);
  if (bad)
    throw new AppError(
      "bad_request",
      bad.length > MAX_SCOPE_LENGTH
        ? `A scope is at most ${MAX_SCOPE_LENGTH} characters; one has ${bad.length}.`
        : `"${bad.length > 40 ? `${bad.slice(0, 40)}…` : bad}" is not a scope (expected resource:action, e.g. rosters:read).`,
      { field: "scopes" },
    );
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(options.requestToken))
    throw new AppError("bad_request", "The form expired; reload the page.");
  const idempotencyKey = (id: string) => `issue:${id}:${options.requestToken}`;
  return db.$transaction(async (tx) => {
    // The tenant lock first (lib/core/keys/tenant-lock.ts), like every change of a district's keys.
    const tenant = tenantId && (await lockTenant(tx, tenantId)) ? { id: tenantId } : null;
    if (!tenant) throw new AppError("not_found", "not found");
    // The same form sent twice (a double click) is the same request: answered, not refused.
    const resent = await tx.outboxMessage.findUnique({
      where: { idempotencyKey: idempotencyKey(tenant.id) },
      select: { id: true },
    });
    if (!resent) await refuseWhatTheProviderWould(tx, tenant.id);
    const staged = await enqueueOutbox(
      {
        kind: "key.issue",
        tenantId: tenant.id,
        idempotencyKey: idempotencyKey(tenant.id),
        payload: { tenantId: tenant.id, scopes },
        requestedBy: auditActor(options.actor),
      },
      tx,
    );
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "key.issue",
        tenantId: tenant.id,
        outcome: staged.created ? "requested" : "already_requested",
        details: { scopes, outbox_id: staged.id.toString() },
      },
      tx,
    );
    return { outboxId: staged.id, staged: staged.created };
  });
}

/** Read after the tenant lock: what the provider refuses an issue for, as we know it now. */
async function refuseWhatTheProviderWould(tx: Parameters<typeof lockTenant>[0], tenantId: string): Promise<void> {
  const active = await tx.apiKey.findFirst({ where: { tenantId, status: "active" }, select: { id: true } });
  if (active)
    throw new AppError(
      "conflict",
      `The district already has an active key, ${active.id}, and the provider allows one at a time. Rotate ${active.id} to replace it.`,
    );
  // Superseded here, never revoked: it may be the provider's active key (a stale-arrived issue is).
  const possiblyLive = await tx.apiKey.findFirst({
    where: { tenantId, status: "superseded" },
    orderBy: { updatedAt: "desc" },
    select: { id: true },
  });
  if (possiblyLive)
    throw new AppError(
      "conflict",
      `${possiblyLive.id} may still be active at the provider (superseded here, never revoked), and the provider allows one active key at a time. Revoke ${possiblyLive.id} first, then issue.`,
    );
  const inFlight = await keyCallInFlight(tx, tenantId);
  if (inFlight)
    throw new AppError(
      "conflict",
      inFlight.kind === "key.issue"
        ? `A new key for this district was already requested at ${inFlight.at}; it appears here when the provider's webhook arrives.`
        : `A rotation for this district was requested at ${inFlight.at}; its new key appears here when the provider's webhook arrives.`,
    );
}
