// The debounce rule, per alert and channel, as a pure function (notify-alerts.ts applies it under
// a row lock):
// - an alert the channel has not heard of and not resolved → "opened", at once (also one already
//   open when the channel was added: a new channel learns what still needs a human);
// - an open alert seen again since the last message → "repeated", at most once per repeat interval
//   (an acknowledged alert is someone's already: no repeats);
// - a resolved alert whose open period the channel was told about → one "resolved" digest;
// - a resolved alert raised again → "opened" of a new round.
// Each message has a stable idempotency key (channel, alert, round, which message), so a second
// notifier, or a retry after a crash, stages the same outbox row instead of a second one.
import type { NotificationEvent } from "../../core/outbox/notification-payload";

type AlertSnapshot = { id: bigint; state: string; lastSeenAt: Date };
export type NotificationState = {
  round: number;
  lastSentAt: Date;
  lastSeenAt: Date;
  repeats: number;
  resolvedAt: Date | null;
};

type NotificationDecision = {
  event: NotificationEvent;
  idempotencyKey: string;
  next: NotificationState;
};

export function decideNotification(input: {
  alert: AlertSnapshot;
  state: NotificationState | null;
  channel: { id: string };
  now: Date;
  repeatIntervalMs: number;
}): NotificationDecision | null {
  const { alert, state, channel, now } = input;
  const key = (round: number, what: string) => `notify:${channel.id}:${alert.id}:${round}:${what}`;
  const resolved = alert.state === "resolved";
  const opened = (round: number): NotificationDecision => ({
    event: "alert.opened",
    idempotencyKey: key(round, "opened"),
    next: { round, lastSentAt: now, lastSeenAt: alert.lastSeenAt, repeats: 0, resolvedAt: null },
  });

  if (!state) return resolved ? null : opened(1);
  if (state.resolvedAt) return resolved ? null : opened(state.round + 1);
  if (resolved) {
    return {
      event: "alert.resolved",
      idempotencyKey: key(state.round, "resolved"),
      next: { ...state, resolvedAt: now },
    };
  }
  if (alert.state !== "open" || alert.lastSeenAt <= state.lastSeenAt) return null;
  if (now.getTime() - state.lastSentAt.getTime() < input.repeatIntervalMs) return null;
  const repeats = state.repeats + 1;
  return {
    event: "alert.repeated",
    idempotencyKey: key(state.round, `repeated:${repeats}`),
    next: { ...state, lastSentAt: now, lastSeenAt: alert.lastSeenAt, repeats },
  };
}
