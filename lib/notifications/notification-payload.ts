// What a notify.* outbox row carries: the message as it was rendered when the notifier staged it,
// so every retry sends the same words. The channel's address and secret are NOT copied here: the
// sender reads them from alert_channels at send time (a fixed URL applies to the retries, and the
// outbox never holds a secret). Only zod: the outbox's enqueue path imports this type.
import { z } from "zod";

export const NOTIFICATION_EVENTS = ["alert.opened", "alert.repeated", "alert.resolved"] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export const notificationPayloadSchema = z.object({
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

export type NotificationPayload = z.infer<typeof notificationPayloadSchema>;
