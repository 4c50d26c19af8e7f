// At-least-once delivery, the way a real webhook sender behaves:
// - every event goes to every hook, signed with Standard Webhooks (two signatures while the hook's
//   secret rotates), on the retry schedule (index = scheduled attempts so far, scaled by the
//   time-scale setting); a non-2xx answer, a timeout or a network error is a failure and the next
//   slot of the schedule follows; after the last slot the message is `failed`;
// - a manual redelivery is one extra attempt (trigger "manual") that never reschedules;
// - injected faults: duplicates (the same event again), reordering (a first delivery held back),
//   delay, lost responses (the receiver answered 2xx and committed, we record a failure and
//   retry — exactly what happens when a response is lost on the way back), and bad signatures
//   (an event's first scheduled attempts signed with a secret the receiver does not hold: it
//   refuses them, and the event stays failed until a later slot or a manual redelivery).
// Every attempt is journaled with its outcome and next retry time before the next step.
import { randomBytes } from "node:crypto";
import { signDelivery } from "../lib/operations/provider/signed-delivery";
import type { Faults } from "./faults";
import type { SimAttempt, SimHook, SimMessage } from "./model";
import type { SimStore } from "./store";

type Send = { messageId: string; dueAt: number; trigger: "scheduled" | "manual"; injected: SimAttempt["injected"] };

export type DispatcherOptions = {
  retryScheduleMs: number[];
  deliveryTimeoutMs: number;
  /** whsk_ Ed25519 keys: each delivery also carries a `v1a` signature per key. */
  signingKeys?: readonly string[];
  concurrency: number;
  faults: () => Faults;
  /** Takes one of the `badSignatureNext` events, if any is left: how many attempts it spoils, else 0. */
  takeBadSignature?: () => number;
  random: () => number;
};

const EXCERPT_CHARS = 200;

export class Dispatcher {
  private queue: Send[] = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private stopped = false;
  private lastScheduled: { eventId: string | null; spoiled: number } = { eventId: null, spoiled: 0 };

  constructor(
    private readonly store: SimStore,
    private readonly options: DispatcherOptions,
  ) {}

  /** After a restart: pending retries and asked-for redeliveries continue where they were. */
  resume(): void {
    for (const message of this.store.messages.values()) {
      if (message.status === "pending")
        this.push({
          messageId: message.id,
          dueAt: message.nextAttemptAt ?? Date.now(),
          trigger: "scheduled",
          injected: null,
        });
      for (let i = 0; i < message.manualQueued; i++)
        this.push({ messageId: message.id, dueAt: Date.now(), trigger: "manual", injected: null });
    }
    this.pump();
  }

  /** A new message: its first delivery, possibly delayed or held back (reordered), or badly signed. */
  schedule(message: SimMessage): void {
    // Per event, not per message: an event's messages to every hook are scheduled one after another.
    if (message.eventId !== this.lastScheduled.eventId)
      this.lastScheduled = { eventId: message.eventId, spoiled: this.options.takeBadSignature?.() ?? 0 };
    const spoiled = this.lastScheduled.spoiled;
    if (spoiled > 0) {
      message = { ...message, badSignatureAttempts: spoiled };
      this.store.put({ t: "message", v: message });
    }
    const faults = this.options.faults();
    let dueAt = (message.nextAttemptAt ?? Date.now()) + faults.delayMs;
    let injected: SimAttempt["injected"] = null;
    if (faults.reorderRate > 0 && this.options.random() < faults.reorderRate) {
      dueAt += faults.reorderDelayMs;
      injected = "reordered";
    }
    this.push({ messageId: message.id, dueAt, trigger: "scheduled", injected });
    this.pump();
  }

  redeliver(message: SimMessage): void {
    this.store.put({ t: "message", v: { ...message, manualQueued: message.manualQueued + 1 } });
    this.push({ messageId: message.id, dueAt: Date.now(), trigger: "manual", injected: null });
    this.pump();
  }

  stats() {
    return { queued: this.queue.length, inFlight: this.inFlight };
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private push(send: Send): void {
    this.queue.push(send);
  }

  private pump(): void {
    if (this.stopped) return;
    const now = Date.now();
    if (this.inFlight < this.options.concurrency) {
      const due = this.queue.filter((s) => s.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt);
      for (const send of due) {
        if (this.inFlight >= this.options.concurrency) break;
        this.queue.splice(this.queue.indexOf(send), 1);
        this.inFlight++;
        void this.deliver(send).finally(() => {
          this.inFlight--;
          this.pump();
        });
      }
    }
    // Sleep until the next send falls due (a finishing delivery pumps again anyway).
    const next = this.queue.reduce((min, s) => Math.min(min, s.dueAt), Infinity);
    if (next === Infinity || this.inFlight >= this.options.concurrency) return;
    if (this.timer && this.timerAt <= next) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.timerAt = Infinity;
        this.pump();
      },
      Math.max(0, next - Date.now()),
    );
  }

  private async deliver(send: Send): Promise<void> {
    const message = this.store.messages.get(send.messageId);
    const hook = message && this.store.hooks.get(message.hookId);
    const event = message && this.store.events.get(message.eventId);
    if (!message || !hook || !event) return;

    const startedAt = Date.now();
    const badlySigned = spoilsSignature(send, message);
    const signed = signDelivery({
      body: event.body,
      webhookId: event.id,
      secrets: badlySigned ? [`whsec_${randomBytes(24).toString("base64")}`] : hookSecrets(hook, startedAt),
      signingKeys: this.options.signingKeys,
      timestamp: new Date(startedAt),
    });
    const answered = await post(hook.url, signed, this.options.deliveryTimeoutMs);
    const durationMs = Date.now() - startedAt;
    const faults = this.options.faults();
    const { outcome, injected } = this.maybeLoseResponse(
      send,
      answered,
      badlySigned ? "bad_signature" : send.injected,
      faults,
    );
    this.record(send, { startedAt, durationMs, outcome, injected, faults });
  }

  /** Journals the attempt and the message's next state, then queues what follows. */
  private record(
    send: Send,
    attempt: {
      startedAt: number;
      durationMs: number;
      outcome: DeliveryOutcome;
      injected: SimAttempt["injected"];
      faults: Faults;
    },
  ): void {
    const { startedAt, durationMs, outcome, injected, faults } = attempt;
    const succeeded = outcome.error === null;
    // Re-read: a manual redelivery may have been asked for while this attempt was in flight.
    const current = this.store.messages.get(send.messageId)!;
    const { next, nextRetryAt } = afterAttempt(current, send, succeeded, this.options.retryScheduleMs);
    this.store.put({
      t: "attempt",
      v: {
        seq: this.store.attempts.length + 1,
        id: `att_${randomBytes(8).toString("hex")}`,
        messageId: current.id,
        hookId: current.hookId,
        eventId: current.eventId,
        tenantId: current.tenantId,
        attempt: next.attempts,
        trigger: send.trigger,
        statusCode: outcome.statusCode,
        durationMs,
        responseExcerpt: outcome.responseExcerpt,
        error: outcome.error,
        at: startedAt,
        nextRetryAt,
        succeeded,
        injected,
      },
    });
    this.store.put({ t: "message", v: next });
    this.queueFollowUps(send, current.id, { succeeded, nextRetryAt, faults });
  }

  /**
   * The lost-response fault: the receiver committed and answered; the answer "never arrived", so
   * the schedule retries. (Only on scheduled attempts: a lost answer to an extra copy would be
   * followed by nothing.)
   */
  private maybeLoseResponse(
    send: Send,
    answered: DeliveryOutcome,
    injected: SimAttempt["injected"],
    faults: Faults,
  ): { outcome: DeliveryOutcome; injected: SimAttempt["injected"] } {
    const scheduled = send.trigger === "scheduled" && send.injected !== "duplicate";
    if (
      answered.error === null &&
      scheduled &&
      faults.lostResponseRate > 0 &&
      this.options.random() < faults.lostResponseRate
    ) {
      const error = `response lost after the receiver answered ${answered.statusCode} (injected)`;
      return { outcome: { statusCode: null, responseExcerpt: null, error }, injected: "lost_response" };
    }
    return { outcome: answered, injected };
  }

  /** The message's next scheduled attempt, and a duplicate of a success (the duplicate fault). */
  private queueFollowUps(
    send: Send,
    messageId: string,
    attempt: { succeeded: boolean; nextRetryAt: number | null; faults: Faults },
  ): void {
    if (attempt.nextRetryAt !== null && !this.stopped)
      this.push({ messageId, dueAt: attempt.nextRetryAt, trigger: "scheduled", injected: null });
    if (
      attempt.succeeded &&
      send.injected !== "duplicate" &&
      attempt.faults.duplicateRate > 0 &&
      this.options.random() < attempt.faults.duplicateRate
    ) {
      // Soon, but not at once, so other deliveries can land in between.
      this.push({
        messageId,
        dueAt: Date.now() + Math.round(this.options.random() * 50),
        trigger: "scheduled",
        injected: "duplicate",
      });
    }
  }
}

/** Only the schedule's own first attempts: a manual redelivery is how a person fixes it. */
function spoilsSignature(send: Send, message: SimMessage): boolean {
  return (
    send.trigger === "scheduled" &&
    send.injected !== "duplicate" &&
    message.scheduledAttempts < (message.badSignatureAttempts ?? 0)
  );
}

/** The hook's secret, and its previous one while a rotation's overlap lasts. */
function hookSecrets(hook: SimHook, at: number): string[] {
  return hook.previousSecret && (hook.previousSecretValidUntil ?? 0) > at
    ? [hook.secret, hook.previousSecret]
    : [hook.secret];
}

type DeliveryOutcome = Pick<SimAttempt, "statusCode" | "responseExcerpt" | "error">;

/** One POST to the receiver: a non-2xx answer, a timeout or a network error is an error. */
async function post(url: string, signed: ReturnType<typeof signDelivery>, timeoutMs: number): Promise<DeliveryOutcome> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: signed.headers,
      body: signed.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const statusCode = response.status;
    const responseExcerpt = (await response.text()).slice(0, EXCERPT_CHARS);
    const error = statusCode < 200 || statusCode >= 300 ? `receiver answered ${statusCode}` : null;
    return { statusCode, responseExcerpt, error };
  } catch (failure) {
    const name = (failure as { name?: string })?.name;
    const cause = (failure as { cause?: { code?: string } })?.cause?.code;
    const error =
      name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms`
        : `could not connect (${cause ?? (failure as Error)?.message ?? "error"})`;
    return { statusCode: null, responseExcerpt: null, error };
  }
}

/**
 * The message after an attempt: a manual one never reschedules, a duplicate changes nothing of
 * the message's own schedule, a scheduled failure takes the schedule's next slot (or fails the
 * message after its last).
 */
function afterAttempt(
  message: SimMessage,
  send: Send,
  succeeded: boolean,
  retryScheduleMs: readonly number[],
): { next: SimMessage; nextRetryAt: number | null } {
  const next: SimMessage = { ...message, attempts: message.attempts + 1 };
  if (send.trigger === "manual") {
    next.manualQueued = Math.max(0, message.manualQueued - 1);
    if (succeeded && message.status !== "succeeded")
      return { next: { ...next, status: "succeeded", nextAttemptAt: null }, nextRetryAt: null };
    return { next, nextRetryAt: null };
  }
  if (send.injected === "duplicate") return { next, nextRetryAt: null };
  const scheduledAttempts = message.scheduledAttempts + 1;
  if (succeeded)
    return { next: { ...next, status: "succeeded", scheduledAttempts, nextAttemptAt: null }, nextRetryAt: null };
  const wait = retryScheduleMs[scheduledAttempts];
  if (wait === undefined)
    return { next: { ...next, status: "failed", scheduledAttempts, nextAttemptAt: null }, nextRetryAt: null };
  const nextRetryAt = Date.now() + wait;
  return { next: { ...next, status: "pending", scheduledAttempts, nextAttemptAt: nextRetryAt }, nextRetryAt };
}
