import "server-only";
// Platform admins add, pause and remove alert channels (Settings). Every change is audited in the
// same transaction. A JSON webhook channel gets a fresh Standard Webhooks secret, returned ONCE
// for the admin to give the receiver; afterwards only its fingerprint is shown. Addresses and
// secrets are stored sealed (channel-secrets.ts).
import { randomBytes } from "node:crypto";
import { prisma, type DbOrTx } from "../db";
import { AppError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import { actorLabel, auditActor, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { channelInputSchema } from "./channel-fields";
import { sealChannelSecrets } from "./channel-secrets";

export type CreatedChannel = { id: string; name: string; kind: string; secret: string | null };

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
  const secret = input.kind === "webhook" ? `whsec_${randomBytes(24).toString("base64")}` : null;
  const sealed = sealChannelSecrets(id, {
    target: input.target,
    smtpUrl: input.kind === "email" ? input.smtpUrl : null,
    secret,
  });
  await db.$transaction(async (tx) => {
    await tx.alertChannel.create({
      data: {
        id,
        kind: input.kind,
        name: input.name,
        ...sealed,
        fromAddress: input.kind === "email" ? input.fromAddress : null,
        createdBy: actorLabel(options.actor),
      },
    });
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "alert_channel.create",
        target: id,
        outcome: "ok",
        details: { kind: input.kind, name: input.name },
      },
      tx,
    );
  });
  return { id, name: input.name, kind: input.kind, secret };
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
