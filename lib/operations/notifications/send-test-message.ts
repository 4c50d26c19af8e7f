import "server-only";
// "Send a test" on Settings: one message to the channel now, through the same sender as the
// outbox's (send-notification.ts), and its answer back where the button was pressed. Not an
// outbox row: a person is waiting, and a test that failed is theirs to read, not to retry. A test
// that gets through counts as the channel answering (its failing alert resolves, its held-back
// messages flow again); one that fails changes nothing but the audit log.
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { actorLabel, auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import type { NotificationPayload } from "../../core/outbox/notification-payload";
import { recordChannelAttempt } from "./channel-health";
import { isNotificationError, type NotificationKind } from "./notification-error";
import { notificationSender } from "./send-notification";

/** A person waits on the answer: shorter than the outbox's provider timeout. */
const TEST_TIMEOUT_MS = 10_000;

type TestResult = { name: string; delivered: boolean; message: string };

export async function sendTestMessage(
  options: { actor: Actor; channelId: string; now?: Date },
  db: DbOrTx = prisma,
): Promise<TestResult> {
  authorize(options.actor, "settings.manage");
  const now = options.now ?? new Date();
  const channel = await db.alertChannel.findUnique({
    where: { id: options.channelId },
    select: { id: true, name: true, kind: true },
  });
  if (!channel) throw new AppError("not_found", "not found");
  const title = `[Keyhook] Test message to "${channel.name}"`;
  const payload: NotificationPayload = {
    channelId: channel.id,
    alertId: "test",
    event: "channel.test",
    title,
    text: `${title}\nSent by ${actorLabel(options.actor)} at ${now.toISOString()} from Settings. If you read this, Keyhook's alerts reach this channel.`,
    alert: {
      id: "test",
      kind: "channel.test",
      subject: channel.name,
      tenantId: null,
      state: "test",
      count: 0,
      firstSeenAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
    },
  };
  const started = performance.now();
  let result: TestResult;
  try {
    const answer = await notificationSender({ timeoutMs: TEST_TIMEOUT_MS, db })({
      kind: `notify.${channel.kind}` as NotificationKind,
      payload,
      idempotencyKey: `test:${channel.id}:${now.getTime()}`,
    });
    const ms = Math.round(performance.now() - started);
    await recordChannelAttempt({ payload, ok: true, error: null, givenUp: false, now }, db);
    result = {
      name: channel.name,
      delivered: true,
      message: `Test message delivered to "${channel.name}": the receiver answered ${answer.status} in ${ms} ms.`,
    };
  } catch (error) {
    // The receiver's own words (status, the start of its answer) are the point of a test; anything
    // else is a bug, for the action's wrapper to log and report without internals.
    if (!isNotificationError(error)) throw error;
    result = {
      name: channel.name,
      delivered: false,
      message: `The test did not reach "${channel.name}": ${error.message}.`,
    };
  }
  await recordAudit(
    {
      actor: auditActor(options.actor),
      action: "alert_channel.test",
      target: channel.id,
      outcome: result.delivered ? "ok" : "failed",
      details: { name: channel.name, message: result.message.slice(0, 500) },
    },
    db,
  );
  return result;
}
