import "server-only";
// A human acknowledges or resolves an alert (audited, in the same transaction as the change).
// The drift resolutions carry out the safe action in that same transaction:
//   revoke_requested         stage "key.revoke" in the outbox (the worker calls the provider with a
//                            stable idempotency key; its key.revoked webhook then lands as usual);
//   recorded_provider_state  take the district's tenant lock (the rule every change of a
//                            district's keys follows, ingest included: lib/core/keys/tenant-lock.ts)
//                            and record the provider's word: our live key becomes rotated or revoked;
//   explained                a note says why the difference is fine; a later run finding the SAME
//                            difference leaves it resolved (lib/operations/drift/run-drift-check.ts).
// A failed outbox row's alert: "resent" puts the call back in the queue; any other resolution
// settles the rows it is about, which then retire with the purge (failed-outbox.ts).
import { prisma, type DbOrTx, type Tx } from "../../core/db/client";
import { AppError, limitedText } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { actorLabel, auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { deactivateKey } from "../../core/keys/deactivate-key";
import { lockTenant } from "../../core/keys/tenant-lock";
import { enqueueOutbox } from "../../core/outbox/enqueue-outbox";
import { driftRevokeIdempotencyKey } from "./drift-subjects";
import { RESOLUTIONS, type AlertResolution } from "./alert-kinds";
import { districtScope, tenantOrNoneWhere } from "../../core/tenancy/district-scope";
import { availableActions } from "./alert-actions";
import { OUTBOX_FAILED_KIND, sendFailedCallAgain, settleFailedOutbox } from "./failed-outbox";
import { isLiveKeyStatus } from "../../core/vocabulary";

type Outcome = "done" | "already";

async function lockedAlert(tx: Tx, actor: Actor, id: string) {
  if (!/^\d{1,19}$/.test(id)) throw new AppError("not_found", "not found");
  const visible = await tx.alert.findFirst({
    where: { AND: [{ id: BigInt(id) }, tenantOrNoneWhere(districtScope(actor))] },
    select: { id: true },
  });
  if (!visible) throw new AppError("not_found", "not found");
  // The row lock: two people (or a sweep) acting at once take turns, and the second sees the first's state.
  await tx.$queryRaw`SELECT id FROM alerts WHERE id = ${visible.id} FOR UPDATE`;
  return tx.alert.findUniqueOrThrow({ where: { id: visible.id } });
}

export async function acknowledgeAlert(
  options: { actor: Actor; id: string; now?: Date },
  db: DbOrTx = prisma,
): Promise<{ subject: string; outcome: Outcome }> {
  authorize(options.actor, "alerts.act");
  const now = options.now ?? new Date();
  return db.$transaction(async (tx) => {
    const alert = await lockedAlert(tx, options.actor, options.id);
    const outcome: Outcome = alert.state === "open" ? "done" : "already";
    if (outcome === "done")
      await tx.alert.update({
        where: { id: alert.id },
        data: { state: "acknowledged", acknowledgedAt: now, acknowledgedBy: actorLabel(options.actor) },
      });
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "alert.acknowledge",
        tenantId: alert.tenantId,
        target: `alerts/${alert.id}`,
        outcome: outcome === "done" ? "ok" : `already_${alert.state}`,
        details: { kind: alert.kind, subject: alert.subject },
      },
      tx,
    );
    return { subject: alert.subject, outcome };
  });
}

export async function resolveAlert(
  options: { actor: Actor; id: string; resolution: string; note?: string; now?: Date },
  db: DbOrTx = prisma,
): Promise<{ subject: string; outcome: Outcome; outboxId?: string }> {
  authorize(options.actor, "alerts.act");
  if (!Object.hasOwn(RESOLUTIONS, options.resolution) || options.resolution === "condition_cleared")
    throw new AppError("bad_request", "Choose how this alert was resolved.");
  const resolution = options.resolution as AlertResolution;
  const note = limitedText(options.note, 1000, "note");
  if (resolution === "explained" && !note) throw new AppError("bad_request", "Say in the note why this is explained.");
  const now = options.now ?? new Date();

  return db.$transaction(async (tx) => {
    const alert = await lockedAlert(tx, options.actor, options.id);
    const details = (alert.details ?? {}) as Record<string, unknown>;
    if (alert.state === "resolved") {
      await audit(tx, options.actor, alert, "already_resolved", { resolution, note });
      return { subject: alert.subject, outcome: "already" as const };
    }
    if (!availableActions(options.actor, alert.kind, alert.state, details).resolutions.includes(resolution))
      throw new AppError("bad_request", "That action does not apply to this alert.");

    let outboxId: string | undefined;
    let keyChange: Record<string, unknown> = {};
    const keyId = typeof details.key_id === "string" ? details.key_id : null;
    if (resolution === "revoke_requested") {
      if (!alert.tenantId || !keyId) throw new AppError("bad_request", "This alert names no key to revoke.");
      await lockTenant(tx, alert.tenantId);
      const staged = await enqueueOutbox(
        {
          kind: "key.revoke",
          tenantId: alert.tenantId,
          idempotencyKey: driftRevokeIdempotencyKey(alert.id, alert.count),
          payload: { tenantId: alert.tenantId, keyId },
          requestedBy: auditActor(options.actor),
        },
        tx,
      );
      outboxId = staged.id.toString();
      keyChange = { key_id: keyId, outbox_id: outboxId };
    } else if (resolution === "recorded_provider_state") {
      if (!alert.tenantId || !keyId) throw new AppError("bad_request", "This alert names no key.");
      keyChange = await recordProviderState(tx, alert.tenantId, keyId, details, now);
    } else if (resolution === "resent") {
      outboxId = (await sendFailedCallAgain(tx, alert.subject, now)).outboxId;
      keyChange = { outbox_id: outboxId };
    } else if (alert.kind === OUTBOX_FAILED_KIND) {
      keyChange = { settled_rows: await settleFailedOutbox(tx, alert.subject, now) };
    }

    await tx.alert.update({
      where: { id: alert.id },
      data: { state: "resolved", resolvedAt: now, resolvedBy: actorLabel(options.actor), resolution, note },
    });
    await audit(tx, options.actor, alert, "ok", { resolution, note, ...keyChange });
    return { subject: alert.subject, outcome: "done" as const, outboxId };
  });
}

/** The provider says the key is rotated, revoked or unknown: our live copy follows, under the tenant lock. */
async function recordProviderState(
  tx: Tx,
  tenantId: string,
  keyId: string,
  details: Record<string, unknown>,
  now: Date,
): Promise<Record<string, unknown>> {
  await lockTenant(tx, tenantId);
  const key = await tx.apiKey.findFirst({ where: { id: keyId, tenantId } });
  const providerStatus = (details.provider as { status?: string } | null)?.status;
  const status = providerStatus === "rotated" ? "rotated" : "revoked";
  if (!key || !isLiveKeyStatus(key.status))
    return { key_id: keyId, previous_status: key?.status ?? null, recorded: "already_not_live" };
  // The provider's word, not our request: confirmed at once, no provider call staged.
  await deactivateKey({ tenantId, keyId, to: status, at: now, confirmed: true }, tx);
  return { key_id: keyId, previous_status: key.status, recorded: status, provider_status: providerStatus ?? "unknown" };
}

async function audit(
  tx: Tx,
  actor: Actor,
  alert: { id: bigint; tenantId: string | null; kind: string; subject: string },
  outcome: string,
  details: Record<string, unknown>,
) {
  await recordAudit(
    {
      actor: auditActor(actor),
      action: "alert.resolve",
      tenantId: alert.tenantId,
      target: `alerts/${alert.id}`,
      outcome,
      details: { kind: alert.kind, subject: alert.subject, ...details },
    },
    tx,
  );
}
