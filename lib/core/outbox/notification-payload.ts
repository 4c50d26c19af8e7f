// What a notify.* outbox row carries: the message as it was rendered when the notifier staged it,
// so every retry sends the same words. The channel's address and secret are NOT copied here: the
// sender reads them from alert_channels at send time (a fixed URL applies to the retries, and the
// outbox never holds a secret). Only zod: the outbox's enqueue path imports this type.
import { z } from "zod";

// channel.test: a person pressed "Send a test" on Settings (never an outbox row).
const NOTIFICATION_EVENTS = ["alert.opened", "alert.repeated", "alert.resolved", "channel.test"] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

const alertNotification = z.object({
  channelId: z.string().min(1),
  alertId: z.string().min(1),
  event: z.enum(NOTIFICATION_EVENTS),
  /** One line for a chat message or an email subject. */
  title: z.string(),
  /** The full text (chat body, email body). */
  text: z.string(),
  /** The alert as the generic JSON webhook receives it. */
  alert: z.object({
    id: z.string(),
    kind: z.string(),
    subject: z.string(),
    tenantId: z.string().nullable(),
    state: z.string(),
    count: z.number(),
    firstSeenAt: z.string(),
    lastSeenAt: z.string(),
    details: z.unknown().optional(),
  }),
});

/** A signed audit checkpoint, sent to the channels that keep a copy (docs/audit.md). */
const checkpointNotification = z.object({
  channelId: z.string().min(1),
  event: z.literal("audit.checkpoint"),
  title: z.string(),
  text: z.string(),
  /** As the checkpoints export writes it: the body exactly as signed, and the signature. */
  checkpoint: z.object({ id: z.string(), body: z.string(), signature: z.string() }),
});

export const notificationPayloadSchema = z.discriminatedUnion("event", [alertNotification, checkpointNotification]);

export type NotificationPayload = z.infer<typeof notificationPayloadSchema>;
export type AlertNotificationPayload = z.infer<typeof alertNotification>;
