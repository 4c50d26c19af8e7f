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
//    one), or `failed` (a refusal retrying cannot fix, or too many attempts). The row keeps the
//    provider's answer as facts (`result`: status, its code, the key it made), and a provider
//    call's final answer is appended to the audit log under the person who asked: accepted,
//    refused (the provider said no) or failed (we gave up), never the "requested" of the action.
// A worker that dies between 1 and 3 leaves the row claimed until the lease ends; the next claim
// marks the orphaned attempt "abandoned" and sends again under the same idempotency key, which the
// provider answers with its first result — so the effect happens exactly once.
//
// A failing alert channel is tried through one message at a time, not each of its messages on its
// own backoff (a dead channel with ten waiting messages was ten retry schedules): while a channel
// has failed its last send, only its oldest waiting message is claimed, a second one claimed in
// the same batch is put back untouched, and once it has failed maxAttempts sends in a row (down)
// it is tried at most once per `downChannelProbeMs`, that one attempt deciding its message.
import { z } from "zod";
import { prisma, type Db, type Tx } from "../../core/db/client";
import { env } from "../../core/config/env";
import { describeError, log } from "../../core/log";
import { recordAudit } from "../../core/audit/record-audit";
import type { ProviderClient, ProviderKeyResult } from "../provider/client";
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
  /** How often a channel that is down is tried again; default ALERT_REPEAT_INTERVAL_MINUTES. */
  downChannelProbeMs?: number;
};

export type ProcessOutboxResult = { claimed: number; sent: number; retrying: number; failed: number };

const ABANDONED = "abandoned: the worker stopped before the provider's answer was recorded";
const IN_FLIGHT = "in flight";
const LEASE_RAN_OUT = "not sent: the batch ran past its lease; the row is sent by a later claim";

type ClaimedRow = {
  id: bigint;
  kind: string;
  tenant_id: string | null;
  payload: unknown;
  idempotency_key: string;
  attempts: number;
  requested_by_id: string | null;
  requested_by: string | null;
  attempt_id: bigint;
  /** A notification's channel (null for a provider call, or a channel deleted since). */
  channel_id: string | null;
  /** Its sends that failed in a row before this claim. */
  channel_failures: number | null;
};

/** What the provider answered, as the row keeps it (the district page and the audit read it). */
type ProviderCallResult = {
  status: number | null;
  /** The provider's error code (`active_key_exists` …), or ours for a failure without one (`timeout`). */
  code?: string;
  /** The provider's own words for a refusal. */
  message?: string;
  /** The provider read the request and said no (a 4xx): asking again cannot change its mind. */
  refused?: true;
  key_id?: string;
  previous_key_id?: string | null;
  event_id?: string | null;
};

/** How a provider call ended, in the audit log. */
const FINAL_OUTCOMES = { accepted: "accepted", refused: "refused", failed: "failed" } as const;

const payloads = {
  "key.revoke": z.object({ tenantId: z.string().min(1), keyId: z.string().min(1) }),
  "key.rotate": z.object({ tenantId: z.string().min(1), keyId: z.string().min(1) }),
  "key.issue": z.object({ tenantId: z.string().min(1), scopes: z.array(z.string()) }),
};

export async function processOutbox(options: ProcessOutboxOptions, db: Db = prisma): Promise<ProcessOutboxResult> {
  const settings = outboxSettings(options);
  const claimedAt = settings.now();
  const rows = await claimDueRows(settings, claimedAt, db);
  const result: ProcessOutboxResult = { claimed: rows.length, sent: 0, retrying: 0, failed: 0 };
  /** Channels whose send failed in this batch: their other messages wait for the next claim. */
  const failedChannels = new Set<string>();
  for (const row of rows) {
    if (row.channel_id !== null && failedChannels.has(row.channel_id)) {
      await putBack(row, claimedAt, db);
      result.claimed--;
    } else if (leaseRanOut(settings, claimedAt)) {
      await leaveToLaterClaim(row, db);
      result.retrying++;
    } else {
      const next = await attemptRow(row, options, settings, db);
      if (next !== "sent" && row.channel_id !== null) failedChannels.add(row.channel_id);
      result[next === "pending" ? "retrying" : next]++;
    }
  }
  return result;
}

/** The options with their defaults filled in. */
type OutboxSettings = {
  now: () => Date;
  batchSize: number;
  leaseMs: number;
  maxAttempts: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  probeMs: number;
};

function outboxSettings(options: ProcessOutboxOptions): OutboxSettings {
  const config = env();
  return {
    now: options.now ?? (() => new Date()),
    batchSize: options.batchSize ?? 20,
    leaseMs: options.leaseMs ?? config.OUTBOX_LEASE_MS,
    maxAttempts: options.maxAttempts ?? config.OUTBOX_MAX_ATTEMPTS,
    baseBackoffMs: options.baseBackoffMs ?? 2_000,
    maxBackoffMs: options.maxBackoffMs ?? 600_000,
    probeMs: options.downChannelProbeMs ?? config.ALERT_REPEAT_INTERVAL_MINUTES * 60_000,
  };
}

/**
 * Step 1 (see the top of this file), in one statement. A message to a failing channel waits behind
 * the channel's oldest waiting message, and a down channel waits for its next probe.
 */
async function claimDueRows(settings: OutboxSettings, claimedAt: Date, db: Db): Promise<ClaimedRow[]> {
  return db.$queryRaw<ClaimedRow[]>`
    WITH due AS (
      SELECT o.id FROM outbox o
      LEFT JOIN alert_channels c ON o.kind LIKE 'notify.%' AND c.id = o.payload->>'channelId'
      WHERE o.status = 'pending' AND o.next_attempt_at <= ${claimedAt}::timestamptz
        AND (c.id IS NULL OR c.consecutive_failures = 0 OR (
          NOT EXISTS (
            SELECT 1 FROM outbox older
            WHERE older.status = 'pending' AND older.kind LIKE 'notify.%'
              AND older.payload->>'channelId' = c.id AND older.id < o.id)
          AND (c.consecutive_failures < ${settings.maxAttempts} OR c.last_failure_at IS NULL
               OR c.last_failure_at <= ${new Date(claimedAt.getTime() - settings.probeMs)}::timestamptz)))
      ORDER BY o.next_attempt_at, o.id
      LIMIT ${settings.batchSize}
      FOR UPDATE OF o SKIP LOCKED
    ), abandoned AS (
      UPDATE outbox_attempts a SET error = ${ABANDONED}
      FROM due WHERE a.outbox_id = due.id AND a.status IS NULL AND a.error = ${IN_FLIGHT}
    ), claimed AS (
      UPDATE outbox o SET attempts = o.attempts + 1,
        next_attempt_at = ${new Date(claimedAt.getTime() + settings.leaseMs)}::timestamptz
      FROM due WHERE o.id = due.id
      RETURNING o.id, o.kind, o.tenant_id, o.payload, o.idempotency_key, o.attempts, o.requested_by_id, o.requested_by
    ), attempt AS (
      INSERT INTO outbox_attempts (outbox_id, at, error)
      SELECT id, ${claimedAt}::timestamptz, ${IN_FLIGHT} FROM claimed
      RETURNING id, outbox_id
    )
    SELECT c.id, c.kind, c.tenant_id, c.payload, c.idempotency_key, c.attempts, c.requested_by_id, c.requested_by,
           a.id AS attempt_id, ch.id AS channel_id, ch.consecutive_failures AS channel_failures
    FROM claimed c JOIN attempt a ON a.outbox_id = c.id
    LEFT JOIN alert_channels ch ON c.kind LIKE 'notify.%' AND ch.id = c.payload->>'channelId'
    ORDER BY c.id`;
}

/** A claimed row left unsent: as it was before the claim, its attempt never made. */
async function putBack(row: ClaimedRow, claimedAt: Date, db: Db): Promise<void> {
  await db.$transaction([
    db.outboxAttempt.delete({ where: { id: row.attempt_id } }),
    db.outboxMessage.update({
      where: { id: row.id },
      data: { attempts: { decrement: 1 }, nextAttemptAt: claimedAt },
    }),
  ]);
}

/**
 * A slow provider can make a batch outlast its lease; another worker may then claim the rest.
 * Leave those rows to it rather than send them twice (harmless, but noise at the provider).
 */
function leaseRanOut(settings: OutboxSettings, claimedAt: Date): boolean {
  return settings.now().getTime() >= claimedAt.getTime() + settings.leaseMs;
}

async function leaveToLaterClaim(row: ClaimedRow, db: Db): Promise<void> {
  await db.outboxAttempt.update({ where: { id: row.attempt_id }, data: { error: LEASE_RAN_OUT } });
}

/** How one send ended, and what becomes of its message. */
type AttemptOutcome = {
  status: number | null;
  error: string | null;
  next: "sent" | "pending" | "failed";
  retryAfterMs: number | null;
  result: ProviderCallResult | null;
  /** The provider said no (a 4xx): retrying the same request cannot change its mind. */
  refused: boolean;
};

/** Steps 2 and 3 for one claimed row: send it, record what became of it, say so. */
async function attemptRow(
  row: ClaimedRow,
  options: ProcessOutboxOptions,
  settings: OutboxSettings,
  db: Db,
): Promise<AttemptOutcome["next"]> {
  const started = performance.now();
  const outcome = await sendOnce(row, options, settings.maxAttempts);
  const durationMs = Math.round(performance.now() - started);
  const finishedAt = settings.now();
  const nextAttemptAt = retryTime(row, outcome, finishedAt, settings);
  await recordOutcome(row, outcome, { durationMs, finishedAt, nextAttemptAt }, db);
  if (isNotificationKind(row.kind)) await recordChannelHealth(row, outcome, finishedAt, db);
  logAttempt(row, outcome, durationMs, nextAttemptAt);
  return outcome.next;
}

/** Sends the row once; a failure comes back classified, never thrown. */
async function sendOnce(row: ClaimedRow, options: ProcessOutboxOptions, maxAttempts: number): Promise<AttemptOutcome> {
  try {
    const answer = isNotificationKind(row.kind)
      ? await (options.notify ?? sendNotification)({
          kind: row.kind,
          payload: row.payload,
          idempotencyKey: row.idempotency_key,
        })
      : await callProvider(options.client, row);
    return {
      status: answer.status,
      error: null,
      next: "sent",
      retryAfterMs: null,
      result: "result" in answer ? (answer.result as ProviderCallResult) : null,
      refused: false,
    };
  } catch (error) {
    return classifyFailure(error, row, maxAttempts);
  }
}

/** Whether a failed send is tried again, and what the row keeps of the provider's answer. */
function classifyFailure(error: unknown, row: ClaimedRow, maxAttempts: number): AttemptOutcome {
  // A wrong API key is usually fixed by an operator soon: keep trying until maxAttempts. A row
  // we cannot even read (bad payload, unknown kind) will never succeed.
  const retryable = isProviderError(error)
    ? error.retryable || error.code === "unauthorized"
    : isNotificationError(error)
      ? error.retryable
      : !(error instanceof z.ZodError || error instanceof UnknownKindError);
  // A probe of a channel that is down gets one attempt: its answer is the channel's.
  const channelDown = (row.channel_failures ?? 0) >= maxAttempts;
  // Refused: the provider read the request and said no; an operator's wrong API key is not that.
  const refused = isProviderError(error) && !error.retryable && error.code !== "unauthorized";
  return {
    status: isProviderError(error) || isNotificationError(error) ? error.status : null,
    error: isProviderError(error) || isNotificationError(error) ? error.message : describeError(error),
    next: retryable && row.attempts < maxAttempts && !channelDown ? "pending" : "failed",
    retryAfterMs: isProviderError(error) ? error.retryAfterMs : null,
    result: isProviderError(error)
      ? {
          status: error.status,
          code: error.providerCode ?? error.code,
          ...(error.providerMessage ? { message: error.providerMessage } : {}),
          ...(refused ? { refused: true } : {}),
        }
      : null,
    refused,
  };
}

/** Exponential backoff from the row's attempt count, or later when the provider's Retry-After says so. */
function retryTime(row: ClaimedRow, outcome: AttemptOutcome, finishedAt: Date, settings: OutboxSettings): Date {
  const backoff = Math.min(settings.maxBackoffMs, settings.baseBackoffMs * 2 ** (row.attempts - 1));
  return new Date(finishedAt.getTime() + Math.max(backoff, outcome.retryAfterMs ?? 0));
}

/** Step 3: the attempt, the message and (for a provider call's final answer) the audit log, together. */
async function recordOutcome(
  row: ClaimedRow,
  outcome: AttemptOutcome,
  at: { durationMs: number; finishedAt: Date; nextAttemptAt: Date },
  db: Db,
): Promise<void> {
  const lastError = outcome.error?.slice(0, 500) ?? null;
  const answered = outcome.result === null ? {} : { result: outcome.result };
  await db.$transaction(async (tx) => {
    await tx.outboxAttempt.update({
      where: { id: row.attempt_id },
      data: { status: outcome.status, error: lastError, durationMs: at.durationMs },
    });
    await tx.outboxMessage.update({
      where: { id: row.id },
      data:
        outcome.next === "sent"
          ? { status: "sent", sentAt: at.finishedAt, lastError: null, ...answered }
          : outcome.next === "pending"
            ? { status: "pending", nextAttemptAt: at.nextAttemptAt, lastError, ...answered }
            : { status: "failed", failedAt: at.finishedAt, lastError, ...answered },
    });
    if (outcome.next !== "pending" && !isNotificationKind(row.kind))
      await auditAnswer(row, { ...outcome, next: outcome.next }, tx);
  });
}

/**
 * A channel that keeps failing becomes an alert itself (channel-health.ts); its bookkeeping must
 * never stop the batch.
 */
async function recordChannelHealth(row: ClaimedRow, outcome: AttemptOutcome, finishedAt: Date, db: Db): Promise<void> {
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

function logAttempt(row: ClaimedRow, outcome: AttemptOutcome, durationMs: number, nextAttemptAt: Date): void {
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

/** The provider's final answer to a key call, in the audit log under the person who asked. */
async function auditAnswer(
  row: ClaimedRow,
  outcome: { next: "sent" | "failed"; result: ProviderCallResult | null; refused: boolean; error: string | null },
  tx: Tx,
): Promise<void> {
  const payload = (row.payload ?? {}) as { keyId?: unknown };
  const answer = outcome.result;
  await recordAudit(
    {
      actor: { id: row.requested_by_id, label: row.requested_by ?? "(staged without a person)" },
      action: row.kind,
      tenantId: row.tenant_id,
      target: typeof payload.keyId === "string" ? payload.keyId : (answer?.key_id ?? null),
      outcome:
        outcome.next === "sent"
          ? FINAL_OUTCOMES.accepted
          : outcome.refused
            ? FINAL_OUTCOMES.refused
            : FINAL_OUTCOMES.failed,
      details: {
        answered_by: "provider",
        outbox_id: row.id.toString(),
        attempts: row.attempts,
        ...(answer ?? {}),
        ...(outcome.next === "failed" && !answer ? { error: outcome.error?.slice(0, 300) ?? null } : {}),
      },
    },
    tx,
  );
}

/** Resolves with the success status the API documents for the call (api-schema.ts) and what it made. */
async function callProvider(
  client: ProviderClient,
  row: ClaimedRow,
): Promise<{ status: number; result: ProviderCallResult }> {
  const idempotencyKey = row.idempotency_key;
  const facts = (status: number, made: ProviderKeyResult): ProviderCallResult => ({
    status,
    key_id: made.key.id,
    previous_key_id: made.previousKeyId,
    event_id: made.eventId,
  });
  switch (row.kind) {
    case "key.revoke": {
      const { tenantId, keyId } = payloads["key.revoke"].parse(row.payload);
      return { status: 200, result: facts(200, await client.revokeKey({ tenantId, keyId, idempotencyKey })) };
    }
    case "key.rotate": {
      const { tenantId, keyId } = payloads["key.rotate"].parse(row.payload);
      return { status: 201, result: facts(201, await client.rotateKey({ tenantId, keyId, idempotencyKey })) };
    }
    case "key.issue": {
      const { tenantId, scopes } = payloads["key.issue"].parse(row.payload);
      return { status: 201, result: facts(201, await client.issueKey({ tenantId, scopes, idempotencyKey })) };
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
