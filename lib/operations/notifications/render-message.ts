// The words of a notification. Plain text: it reads the same in Slack, an email and a log.
import type { AlertNotificationPayload, NotificationEvent } from "../../core/outbox/notification-payload";
import { subjectName } from "../alerts/describe-alert";

export type AlertRow = {
  id: bigint;
  kind: string;
  subject: string;
  tenant_id: string | null;
  first_seen_at: Date;
  last_seen_at: Date;
  count: number;
  state: string;
  details: unknown;
};

export function renderNotification(
  alert: AlertRow,
  event: NotificationEvent,
  context: { channelId: string; repeats: number; now: Date },
): AlertNotificationPayload {
  const where = alert.tenant_id ? ` (${alert.tenant_id})` : "";
  const label = `${alert.kind.replaceAll("_", " ")}: ${subjectName(alert.kind, alert.subject, alert.details)}${where}`;
  const seen = `seen ${alert.count} time${alert.count === 1 ? "" : "s"}, first ${alert.first_seen_at.toISOString()}, last ${alert.last_seen_at.toISOString()}`;
  const title =
    event === "alert.opened"
      ? `[Keyhook] New alert — ${label}`
      : event === "alert.repeated"
        ? `[Keyhook] Still open — ${label}`
        : `[Keyhook] Resolved — ${label}`;
  const lines =
    event === "alert.resolved"
      ? [
          title,
          `Open for ${duration(alert.last_seen_at.getTime() - alert.first_seen_at.getTime())}; ${seen}.`,
          `Reminders sent while open: ${context.repeats}.`,
        ]
      : [title, `State ${alert.state}; ${seen}.`];
  const details = summarize(alert.details);
  if (details && event !== "alert.resolved") lines.push(details);
  return {
    channelId: context.channelId,
    alertId: alert.id.toString(),
    event,
    title,
    text: lines.join("\n"),
    alert: {
      id: alert.id.toString(),
      kind: alert.kind,
      subject: alert.subject,
      tenantId: alert.tenant_id,
      state: alert.state,
      count: alert.count,
      firstSeenAt: alert.first_seen_at.toISOString(),
      lastSeenAt: alert.last_seen_at.toISOString(),
      details: alert.details ?? undefined,
    },
  };
}

function summarize(details: unknown): string | null {
  if (!details || typeof details !== "object") return null;
  const parts = Object.entries(details as Record<string, unknown>)
    .filter(([, value]) => value !== null && typeof value !== "object")
    .slice(0, 8)
    .map(([name, value]) => `${name}: ${String(value).slice(0, 200)}`);
  return parts.length ? parts.join("; ") : null;
}

function duration(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
