import "server-only";
// Sends one staged notification (a notify.* outbox row) to its channel, read fresh from
// alert_channels and opened (channel-secrets.ts): the URL, recipients or secret as they are now. The idempotency key travels as
// the message's id (Standard Webhooks `webhook-id`, the email's Message-ID), so a receiver that
// sees a retry of a message it already has can drop it.
import { prisma, type DbOrTx } from "../../core/db/client";
import { env } from "../../core/config/env";
import { openChannelSecrets } from "./channel-secrets";
import { NotificationError, type NotificationKind } from "./notification-error";
import { notificationPayloadSchema } from "../../core/outbox/notification-payload";
import { sendEmail } from "./send-email";
import { postSlack, postSignedWebhook } from "./send-http";

export type NotificationSender = (input: {
  kind: NotificationKind;
  payload: unknown;
  idempotencyKey: string;
}) => Promise<{ status: number }>;

export function notificationSender(options: { timeoutMs?: number; db?: DbOrTx } = {}): NotificationSender {
  return async ({ kind, payload, idempotencyKey }) => {
    const message = notificationPayloadSchema.parse(payload);
    const db = options.db ?? prisma;
    const stored = await db.alertChannel.findUnique({ where: { id: message.channelId } });
    if (!stored) throw new NotificationError("the channel was deleted", { retryable: false });
    const channel = openChannelSecrets(stored);
    if (!channel.enabled) throw new NotificationError("the channel is disabled", { retryable: false });
    if (`notify.${channel.kind}` !== kind)
      throw new NotificationError(`the channel is now a ${channel.kind} channel`, { retryable: false });
    const timeoutMs = options.timeoutMs ?? env().PROVIDER_TIMEOUT_MS;
    switch (channel.kind) {
      case "slack":
        return postSlack({ url: channel.target, text: message.text, timeoutMs });
      case "webhook":
        if (!channel.secret) throw new NotificationError("the channel has no signing secret", { retryable: false });
        return postSignedWebhook({
          url: channel.target,
          secret: channel.secret,
          messageId: idempotencyKey,
          body: {
            type: message.event,
            timestamp: new Date().toISOString(),
            data:
              message.event === "audit.checkpoint"
                ? { title: message.title, text: message.text, checkpoint: message.checkpoint }
                : { title: message.title, text: message.text, alert: message.alert },
          },
          timeoutMs,
        });
      case "email":
        if (!channel.smtpUrl || !channel.fromAddress)
          throw new NotificationError("the channel has no SMTP relay or sender", { retryable: false });
        return sendEmail({
          smtpUrl: channel.smtpUrl,
          from: channel.fromAddress,
          to: channel.target,
          subject: message.title,
          text: message.text,
          messageId: idempotencyKey,
          timeoutMs,
        });
      default:
        throw new NotificationError(`unknown channel kind ${channel.kind}`, { retryable: false });
    }
  };
}

/** The default sender of the outbox worker. */
export const sendNotification: NotificationSender = (input) => notificationSender()(input);
