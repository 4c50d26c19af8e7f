// At-least-once delivery, the way a real webhook sender behaves:
// - every event goes to every hook, signed with Standard Webhooks (two signatures while the hook's
//   secret rotates), on the retry schedule (index = scheduled attempts so far, scaled by the
//   time-scale setting); a non-2xx answer, a timeout or a network error is a failure and the next
//   slot of the schedule follows; after the last slot the message is `failed`;
// - a manual redelivery is one extra attempt (trigger "manual") that never reschedules;
// - injected faults: duplicates (the same event again), reordering (a first delivery held back),
//   delay, and lost responses (the receiver answered 2xx and committed, we record a failure and
//   retry — exactly what happens when a response is lost on the way back).
// Every attempt is journaled with its outcome and next retry time before the next step.
import { randomBytes } from "node:crypto";
import { signDelivery } from "../lib/provider/signed-delivery";
import type { Faults } from "./faults";
import type { SimAttempt, SimMessage } from "./model";
import type { SimStore } from "./store";

type Send = { messageId: string; dueAt: number; trigger: "scheduled" | "manual"; injected: SimAttempt["injected"] };

export type DispatcherOptions = {
  retryScheduleMs: number[];
  deliveryTimeoutMs: number;
  concurrency: number;
  faults: () => Faults;
  random: () => number;
};

const EXCERPT_CHARS = 200;

export class Dispatcher {
  private queue: Send[] = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private stopped = false;

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

  /** A new message: its first delivery, possibly delayed or held back (reordered). */
  schedule(message: SimMessage): void {
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
    let message = this.store.messages.get(send.messageId);
    const hook = message && this.store.hooks.get(message.hookId);
    const event = message && this.store.events.get(message.eventId);
    if (!message || !hook || !event) return;

    const startedAt = Date.now();
    const secrets =
      hook.previousSecret && (hook.previousSecretValidUntil ?? 0) > startedAt
        ? [hook.secret, hook.previousSecret]
        : [hook.secret];
    const signed = signDelivery({ body: event.body, webhookId: event.id, secrets, timestamp: new Date(startedAt) });
    let statusCode: number | null = null;
    let responseExcerpt: string | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(hook.url, {
        method: "POST",
        headers: signed.headers,
        body: signed.body,
        signal: AbortSignal.timeout(this.options.deliveryTimeoutMs),
      });
      statusCode = response.status;
      responseExcerpt = (await response.text()).slice(0, EXCERPT_CHARS);
      if (statusCode < 200 || statusCode >= 300) error = `receiver answered ${statusCode}`;
    } catch (failure) {
      const name = (failure as { name?: string })?.name;
      const cause = (failure as { cause?: { code?: string } })?.cause?.code;
      error =
        name === "TimeoutError"
          ? `no answer within ${this.options.deliveryTimeoutMs} ms`
          : `could not connect (${cause ?? (failure as Error)?.message ?? "error"})`;
    }
    const durationMs = Date.now() - startedAt;

    let injected = send.injected;
    const faults = this.options.faults();
    const scheduled = send.trigger === "scheduled" && send.injected !== "duplicate";
    if (error === null && scheduled && faults.lostResponseRate > 0 && this.options.random() < faults.lostResponseRate) {
      // The receiver committed and answered; the answer "never arrived", so the schedule retries.
      // (Only on scheduled attempts: a lost answer to an extra copy would be followed by nothing.)
      error = `response lost after the receiver answered ${statusCode} (injected)`;
      statusCode = null;
      responseExcerpt = null;
      injected = "lost_response";
    }
    const succeeded = error === null;

    // Re-read: a manual redelivery may have been asked for while this attempt was in flight.
    message = this.store.messages.get(send.messageId)!;
    const attemptNumber = message.attempts + 1;
    let next: SimMessage = { ...message, attempts: attemptNumber };
    let nextRetryAt: number | null = null;
    if (send.trigger === "manual") {
      next.manualQueued = Math.max(0, message.manualQueued - 1);
      if (succeeded && message.status !== "succeeded") next = { ...next, status: "succeeded", nextAttemptAt: null };
    } else if (send.injected === "duplicate") {
      // A duplicate is an extra copy: it never changes the message's own schedule.
    } else if (succeeded) {
      next = { ...next, status: "succeeded", scheduledAttempts: message.scheduledAttempts + 1, nextAttemptAt: null };
    } else {
      const scheduled = message.scheduledAttempts + 1;
      const wait = this.options.retryScheduleMs[scheduled];
      if (wait === undefined) {
        next = { ...next, status: "failed", scheduledAttempts: scheduled, nextAttemptAt: null };
      } else {
        nextRetryAt = Date.now() + wait;
        next = { ...next, status: "pending", scheduledAttempts: scheduled, nextAttemptAt: nextRetryAt };
      }
    }

    const attempt: SimAttempt = {
      seq: this.store.attempts.length + 1,
      id: `att_${randomBytes(8).toString("hex")}`,
      messageId: message.id,
      hookId: message.hookId,
      eventId: message.eventId,
      tenantId: message.tenantId,
      attempt: attemptNumber,
      trigger: send.trigger,
      statusCode,
      durationMs,
      responseExcerpt,
      error,
      at: startedAt,
      nextRetryAt,
      succeeded,
      injected,
    };
    this.store.put({ t: "attempt", v: attempt });
    this.store.put({ t: "message", v: next });

    if (nextRetryAt !== null && !this.stopped)
      this.push({ messageId: message.id, dueAt: nextRetryAt, trigger: "scheduled", injected: null });
    if (
      succeeded &&
      send.injected !== "duplicate" &&
      faults.duplicateRate > 0 &&
      this.options.random() < faults.duplicateRate
    ) {
      // Soon, but not at once, so other deliveries can land in between.
      this.push({
        messageId: message.id,
        dueAt: Date.now() + Math.round(this.options.random() * 50),
        trigger: "scheduled",
        injected: "duplicate",
      });
    }
  }
}
