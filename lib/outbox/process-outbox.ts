import "server-only";
// Sends staged calls (enqueue-outbox.ts) — provider calls (key.*) and alert notifications
// (notify.*, lib/notifications) — and records every attempt. The job queue runs it
// (drain-outbox.ts); it decides nothing about scheduling itself.
//
// 1. Claim: ONE statement picks due `pending` rows with FOR UPDATE SKIP LOCKED (several workers
//    never take the same row), pushes their next_attempt_at out by a lease, counts the attempt and
//    inserts its outbox_attempts row ("in flight"). It commits before any network call: no
//    transaction is held open while the provider thinks.
// 2. Send with the row's stable idempotency key, the client's own retrying switched off — the
//    retry lives here, durably, so every HTTP attempt is one recorded attempt.
// 3. Finish in one transaction: the attempt row gets its status/error/duration; the message
//    becomes `sent`, or `pending` again at now + backoff (Retry-After when the provider gave
//    one), or `failed` (a refusal retrying cannot fix, or too many attempts).
// A worker that dies between 1 and 3 leaves the row claimed until the lease ends; the next claim
// marks the orphaned attempt "abandoned" and sends again under the same idempotency key, which the
// provider answers with its first result — so the effect happens exactly once.
import { z } from "zod";
import { prisma, type Db } from "../db";
import { env } from "../env";
import { describeError, log } from "../log";
import type { ProviderClient } from "../provider/client";
import { isProviderError } from "../provider/errors";
import { recordChannelAttempt } from "../notifications/channel-health";
import { isNotificationError, isNotificationKind } from "../notifications/notification-error";
import { sendNotification, type NotificationSender } from "../notifications/send-notification";

export type ProcessOutboxOptions = {
  /** Must not retry on its own: pass a client created with `maxRetries: 0`. */
  client: ProviderClient;
  /** Sends the notify.* rows (alert channels). Default: the real senders (lib/notifications). */
  notify?: NotificationSender;
  now?: () => Date;
  batchSize?: number;
  leaseMs?: number;
  maxAttempts?: number;
  /** Backoff before attempt n+1: min(maxBackoffMs, baseBackoffMs · 2^(n-1)). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
};

export type ProcessOutboxResult = { claimed: number; sent: number; retrying: number; failed: number };

const ABANDONED = "abandoned: the worker stopped before the provider's answer was recorded";
const IN_FLIGHT = "in flight";
const LEASE_RAN_OUT = "not sent: the batch ran past its lease; the row is sent by a later claim";

type ClaimedRow = {
  id: bigint;
  kind: string;
  payload: unknown;
  idempotency_key: string;
  attempts: number;
  attempt_id: bigint;
};

const payloads = {
  "key.revoke": z.object({ tenantId: z.string().min(1), keyId: z.string().min(1) }),
  "key.rotate": z.object({ tenantId: z.string().min(1), keyId: z.string().min(1) }),
  "key.issue": z.object({ tenantId: z.string().min(1), scopes: z.array(z.string()) }),
};

export async function processOutbox(options: ProcessOutboxOptions, db: Db = prisma): Promise<ProcessOutboxResult> {
  const config = env();
  const now = options.now ?? (() => new Date());
  const leaseMs = options.leaseMs ?? config.OUTBOX_LEASE_MS;
  const maxAttempts = options.maxAttempts ?? config.OUTBOX_MAX_ATTEMPTS;
  const claimedAt = now();

  const rows = await db.$queryRaw<ClaimedRow[]>`
    WITH due AS (
      SELECT id FROM outbox
      WHERE status = 'pending' AND next_attempt_at <= ${claimedAt}::timestamptz
      ORDER BY next_attempt_at, id
      LIMIT ${options.batchSize ?? 20}
      FOR UPDATE SKIP LOCKED
    ), abandoned AS (
      UPDATE outbox_attempts a SET error = ${ABANDONED}
      FROM due WHERE a.outbox_id = due.id AND a.status IS NULL AND a.error = ${IN_FLIGHT}
    ), claimed AS (
      UPDATE outbox o SET attempts = o.attempts + 1,
        next_attempt_at = ${new Date(claimedAt.getTime() + leaseMs)}::timestamptz
      FROM due WHERE o.id = due.id
      RETURNING o.id, o.kind, o.payload, o.idempotency_key, o.attempts
    ), attempt AS (
      INSERT INTO outbox_attempts (outbox_id, at, error)
      SELECT id, ${claimedAt}::timestamptz, ${IN_FLIGHT} FROM claimed
      RETURNING id, outbox_id
    )
    SELECT c.id, c.kind, c.payload, c.idempotency_key, c.attempts, a.id AS attempt_id
    FROM claimed c JOIN attempt a ON a.outbox_id = c.id
    ORDER BY c.id`;

  const result: ProcessOutboxResult = { claimed: rows.length, sent: 0, retrying: 0, failed: 0 };
  for (const row of rows) {
    // A slow provider can make a batch outlast its lease; another worker may then claim the rest.
    // Leave those rows to it rather than send them twice (harmless, but noise at the provider).
    if (now().getTime() >= claimedAt.getTime() + leaseMs) {
      await db.outboxAttempt.update({ where: { id: row.attempt_id }, data: { error: LEASE_RAN_OUT } });
      result.retrying++;
      continue;
    }
    const started = performance.now();
    let outcome: {
      status: number | null;
      error: string | null;
      next: "sent" | "pending" | "failed";
      retryAfterMs: number | null;
    };
    try {
      const answer = isNotificationKind(row.kind)
        ? await (options.notify ?? sendNotification)({
            kind: row.kind,
            payload: row.payload,
            idempotencyKey: row.idempotency_key,
          })
        : await send(options.client, row);
      outcome = { status: answer.status, error: null, next: "sent", retryAfterMs: null };
    } catch (error) {
      // A wrong API key is usually fixed by an operator soon: keep trying until maxAttempts. A row
      // we cannot even read (bad payload, unknown kind) will never succeed.
      const retryable = isProviderError(error)
        ? error.retryable || error.code === "unauthorized"
        : isNotificationError(error)
          ? error.retryable
          : !(error instanceof z.ZodError || error instanceof UnknownKindError);
      outcome = {
        status: isProviderError(error) || isNotificationError(error) ? error.status : null,
        error: isProviderError(error) || isNotificationError(error) ? error.message : describeError(error),
        next: retryable && row.attempts < maxAttempts ? "pending" : "failed",
        retryAfterMs: isProviderError(error) ? error.retryAfterMs : null,
      };
    }
    const durationMs = Math.round(performance.now() - started);
    const finishedAt = now();
    const backoff = Math.min(
      options.maxBackoffMs ?? 600_000,
      (options.baseBackoffMs ?? 2_000) * 2 ** (row.attempts - 1),
    );
    const nextAttemptAt = new Date(finishedAt.getTime() + Math.max(backoff, outcome.retryAfterMs ?? 0));

    await db.$transaction([
      db.outboxAttempt.update({
        where: { id: row.attempt_id },
        data: { status: outcome.status, error: outcome.error?.slice(0, 500) ?? null, durationMs },
      }),
      db.outboxMessage.update({
        where: { id: row.id },
        data:
          outcome.next === "sent"
            ? { status: "sent", sentAt: finishedAt, lastError: null }
            : outcome.next === "pending"
              ? { status: "pending", nextAttemptAt, lastError: outcome.error?.slice(0, 500) ?? null }
              : { status: "failed", lastError: outcome.error?.slice(0, 500) ?? null },
      }),
    ]);
    result[outcome.next === "pending" ? "retrying" : outcome.next]++;
    if (isNotificationKind(row.kind)) {
      // A channel that keeps failing becomes an alert itself (channel-health.ts); its bookkeeping
      // must never stop the batch.
      await recordChannelAttempt(
        {
          payload: row.payload,
          ok: outcome.next === "sent",
          error: outcome.error,
          givenUp: outcome.next === "failed",
          now: finishedAt,
        },
        db,
      ).catch((error: unknown) =>
        log.error("channel health update failed", { outbox_id: String(row.id), error: describeError(error) }),
      );
    }
    const fields = {
      outbox_id: String(row.id),
      kind: row.kind,
      attempt: row.attempts,
      status: outcome.status,
      duration_ms: durationMs,
    };
    if (outcome.next === "sent") log.info("outbox sent", fields);
    else
      log.warn(
        `outbox attempt failed; ${outcome.next === "pending" ? `retrying at ${nextAttemptAt.toISOString()}` : "giving up"}`,
        { ...fields, error: outcome.error },
      );
  }
  return result;
}

/** Resolves with the success status the API documents for the call (api-schema.ts). */
async function send(client: ProviderClient, row: ClaimedRow): Promise<{ status: number }> {
  const idempotencyKey = row.idempotency_key;
  switch (row.kind) {
    case "key.revoke": {
      const { tenantId, keyId } = payloads["key.revoke"].parse(row.payload);
      await client.revokeKey({ tenantId, keyId, idempotencyKey });
      return { status: 200 };
    }
    case "key.rotate": {
      const { tenantId, keyId } = payloads["key.rotate"].parse(row.payload);
      await client.rotateKey({ tenantId, keyId, idempotencyKey });
      return { status: 201 };
    }
    case "key.issue": {
      const { tenantId, scopes } = payloads["key.issue"].parse(row.payload);
      await client.issueKey({ tenantId, scopes, idempotencyKey });
      return { status: 201 };
    }
    default:
      throw new UnknownKindError(row.kind);
  }
}

class UnknownKindError extends Error {
  constructor(kind: string) {
    super(`unknown outbox kind ${kind}`);
    this.name = "UnknownKindError";
  }
}
