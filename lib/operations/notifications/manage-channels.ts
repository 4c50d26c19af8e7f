import "server-only";
// Platform admins add, pause and remove alert channels (Settings). Every change is audited in the
// same transaction. A JSON webhook channel gets a fresh Standard Webhooks secret, returned ONCE
// for the admin to give the receiver; afterwards only its fingerprint is shown. Addresses and
// secrets are stored sealed (channel-secrets.ts).
import { randomBytes } from "node:crypto";
import { prisma, type DbOrTx, type Tx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { actorLabel, auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { channelInputSchema, type ChannelInput } from "./channel-fields";
import { openChannelSecrets, sealChannelSecrets } from "./channel-secrets";
import { resolveAlerts } from "../alerts/upsert-alert";
import { CHANNEL_FAILING_ALERT } from "./channel-health";

type CreatedChannel = { id: string; name: string; kind: string; secret: string | null };

export async function createAlertChannel(
  options: { actor: Actor; input: Record<string, unknown> },
  db: DbOrTx = prisma,
): Promise<CreatedChannel> {
  authorize(options.actor, "settings.manage");
  const parsed = channelInputSchema.safeParse(options.input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("bad_request", issue.message, {
      field: issue.path[0] === undefined ? undefined : String(issue.path[0]),
    });
  }
  const input = parsed.data;
  const id = `ch_${randomBytes(9).toString("base64url")}`;
  const secret =
    input.kind === "webhook" || input.kind === "audit_stream" ? `whsec_${randomBytes(24).toString("base64")}` : null;
  const sealed = sealChannelSecrets(id, {
    target: input.target,
    smtpUrl: input.kind === "email" ? input.smtpUrl : null,
    secret,
  });
  await db.$transaction(async (tx) => {
    // One add at a time, so two admins adding the same channel at once cannot both pass the check.
    await tx.$executeRaw`LOCK TABLE alert_channels IN SHARE ROW EXCLUSIVE MODE`;
    await refuseDuplicate(tx, input);
    await tx.alertChannel.create({
      data: {
        id,
        kind: input.kind,
        name: input.name,
        ...sealed,
        fromAddress: input.kind === "email" ? input.fromAddress : null,
        receivesCheckpoints: input.kind === "audit_stream" ? false : input.receivesCheckpoints,
        createdBy: actorLabel(options.actor),
      },
    });
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "alert_channel.create",
        target: id,
        outcome: "ok",
        details: {
          kind: input.kind,
          name: input.name,
          ...(input.kind === "audit_stream" ? {} : { receivesCheckpoints: input.receivesCheckpoints }),
        },
      },
      tx,
    );
  });
  return { id, name: input.name, kind: input.kind, secret };
}

/**
 * A second channel with the same name, or the same kind and address, would send every alert twice
 * (or leave two rows nobody can tell apart): refused next to the field. Addresses are sealed at
 * rest, so they are compared opened; there are few channels.
 */
async function refuseDuplicate(tx: Tx, input: ChannelInput): Promise<void> {
  const existing = (await tx.alertChannel.findMany()).map((row) => openChannelSecrets(row));
  const name = input.name.toLowerCase();
  const sameName = existing.find((c) => c.name.trim().toLowerCase() === name);
  if (sameName)
    throw new AppError("bad_request", `A channel named "${sameName.name}" already exists: choose another name.`, {
      field: "name",
    });
  const sameTarget = existing.find((c) => c.kind === input.kind && sameAddress(c.target, input.target));
  if (sameTarget)
    throw new AppError(
      "bad_request",
      `The channel "${sameTarget.name}" already sends to this address: every alert would go there twice.`,
      { field: "target" },
    );
}

function sameAddress(a: string, b: string): boolean {
  const normal = (value: string) => {
    try {
      return new URL(value).href;
    } catch {
      return value.trim().toLowerCase();
    }
  };
  return normal(a) === normal(b);
}

export async function setAlertChannelEnabled(
  options: { actor: Actor; channelId: string; enabled: boolean },
  db: DbOrTx = prisma,
): Promise<{ name: string; changed: boolean }> {
  authorize(options.actor, "settings.manage");
  return db.$transaction(async (tx) => {
    const channel = await tx.alertChannel.findUnique({ where: { id: options.channelId } });
    if (!channel) throw new AppError("not_found", "not found");
    const changed = channel.enabled !== options.enabled;
    if (changed) await tx.alertChannel.update({ where: { id: channel.id }, data: { enabled: options.enabled } });
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: options.enabled ? "alert_channel.enable" : "alert_channel.disable",
        target: channel.id,
        outcome: changed ? "ok" : "unchanged",
        details: { name: channel.name },
      },
      tx,
    );
    return { name: channel.name, changed };
  });
}

/** Its debounce state goes with it; messages already staged fail as "channel deleted". */
export async function deleteAlertChannel(
  options: { actor: Actor; channelId: string },
  db: DbOrTx = prisma,
): Promise<{ name: string }> {
  authorize(options.actor, "settings.manage");
  return db.$transaction(async (tx) => {
    const channel = await tx.alertChannel.findUnique({ where: { id: options.channelId } });
    if (!channel) throw new AppError("not_found", "not found");
    await tx.alertNotification.deleteMany({ where: { channelId: channel.id } });
    await tx.alertChannel.delete({ where: { id: channel.id } });
    // A channel that is gone fails no more: its alert resolves (a person's decision on it is spent).
    await resolveAlerts({ kind: CHANNEL_FAILING_ALERT, subjects: [channel.id], now: new Date() }, tx);
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "alert_channel.delete",
        target: channel.id,
        outcome: "ok",
        details: { name: channel.name, kind: channel.kind },
      },
      tx,
    );
    return { name: channel.name };
  });
}
