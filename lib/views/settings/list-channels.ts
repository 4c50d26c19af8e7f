import "server-only";
// The Settings page's view of the alert channels: addresses opened (they are sealed at rest) and
// masked (mask.ts), health from the worker's bookkeeping, and whether the channel's own
// `channel_failing` alert is open.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { CHANNEL_FAILING_ALERT } from "../../operations/notifications/channel-health";
import { openChannelSecrets } from "../../operations/notifications/channel-secrets";
import { maskSecret, maskSmtpUrl, maskUrl } from "../../operations/notifications/mask";
import { streamBacklog } from "../../operations/audit/stream-audit-log";

export type ChannelView = {
  id: string;
  kind: string;
  name: string;
  /** Masked URL, or the email recipients (not a secret). */
  target: string;
  smtpRelay: string | null;
  fromAddress: string | null;
  secret: string | null;
  enabled: boolean;
  createdAt: Date;
  createdBy: string | null;
  consecutiveFailures: number;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  lastError: string | null;
  /** The channel's own alert is open (or acknowledged): it keeps failing. */
  failing: boolean;
  /** Sent a copy of every signed audit checkpoint. */
  receivesCheckpoints: boolean;
  /** An audit stream: entries not acknowledged yet, and when it tries again after a failure. */
  stream: { backlog: number; sentSeq: string; retryAt: Date | null } | null;
};

export async function listAlertChannels(options: { actor: Actor }, db: DbOrTx = prisma): Promise<ChannelView[]> {
  authorize(options.actor, "settings.view");
  const channels = await db.alertChannel.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  if (channels.length === 0) return [];
  const failing = await db.alert.findMany({
    where: { kind: CHANNEL_FAILING_ALERT, subject: { in: channels.map((c) => c.id) }, state: { not: "resolved" } },
    select: { subject: true },
  });
  const failingIds = new Set(failing.map((a) => a.subject));
  const views: ChannelView[] = [];
  for (const row of channels) {
    const c = openChannelSecrets(row);
    views.push({
      id: c.id,
      kind: c.kind,
      name: c.name,
      target: c.kind === "email" ? c.target : maskUrl(c.target),
      smtpRelay: c.smtpUrl ? maskSmtpUrl(c.smtpUrl) : null,
      fromAddress: c.fromAddress,
      secret: c.secret ? maskSecret(c.secret) : null,
      enabled: c.enabled,
      createdAt: c.createdAt,
      createdBy: c.createdBy,
      consecutiveFailures: c.consecutiveFailures,
      lastSuccessAt: c.lastSuccessAt,
      lastFailureAt: c.lastFailureAt,
      lastError: c.lastError,
      failing: failingIds.has(c.id),
      receivesCheckpoints: c.receivesCheckpoints,
      stream:
        c.kind === "audit_stream"
          ? {
              backlog: await streamBacklog(row.streamSentSeq, db),
              sentSeq: row.streamSentSeq.toString(),
              retryAt: row.streamRetryAt,
            }
          : null,
    });
  }
  return views;
}
