// One line per alert, from what its sweep or check stored in details: the alert center's list and
// the notifications' titles. Things are named by their names (a channel by its name, not its id).
import { auditActionWords } from "../../core/audit/audit-words";

const text = (value: unknown) => (typeof value === "string" || typeof value === "number" ? String(value) : null);

export function describeAlert(kind: string, subject: string, details: unknown, count: number): string {
  const d = (details ?? {}) as Record<string, unknown>;
  if (typeof d.summary === "string") return d.summary;
  switch (kind) {
    case "quarantine":
      return `${count} quarantined ${count === 1 ? "event" : "events"} for ${text(d.key_id) ?? "no key"} in ${text(d.tenant_id) ?? "?"}${d.last_reason ? `: ${text(d.last_reason)}` : ""}`;
    case "superseded_key":
      return `${text(d.key_id) ?? subject} was superseded${d.superseded_by ? ` by ${text(d.superseded_by)}` : ""} and may still work`;
    case "sequence_gap":
      return `sequences ${text(d.from_sequence)}–${text(d.to_sequence)} of ${text(d.tenant_id)} never arrived`;
    case "outbox_failed": {
      if (d.channel_id !== undefined)
        return `${text(d.messages) ?? "?"} alert message(s) to ${channelName(d)} were given up`;
      const answer = (d.provider_answer ?? {}) as {
        status?: unknown;
        code?: unknown;
        message?: unknown;
        refused?: unknown;
      };
      const call = `${typeof d.command === "string" ? auditActionWords(d.command) : "A provider call"} for ${text(d.tenant_id) ?? "?"}`;
      if (answer.refused === true)
        return `${call}: the provider refused it (${[text(answer.status), text(answer.code)].filter(Boolean).join(" ")}${answer.message ? `: ${text(answer.message)}` : ""})`;
      const attempts = Number(d.attempts);
      return `${call}: gave up after ${Number.isFinite(attempts) ? `${attempts} ${attempts === 1 ? "attempt" : "attempts"}` : "its attempts"}${d.last_error ? ` (${text(d.last_error)})` : ""}`;
    }
    case "channel_failing":
      return `alert channel ${channelName(d)} is failing: ${text(d.consecutiveFailures) ?? "?"} sends in a row did not get through`;
    case "purge_failed":
      return `the retention purge failed${d.error ? `: ${text(d.error)}` : ""}`;
    case "provider_unreachable":
      return `the provider has not answered since ${text(d.failing_since) ?? "?"} (${text(d.failed_calls) ?? "?"} failed calls)`;
    case "delivery_failure_rate":
      return `${text(d.failed_percent)} % of ${text(d.deliveries)} deliveries in the last ${text(d.window_minutes)} min were not accepted`;
    default:
      return subject;
  }
}

function channelName(d: Record<string, unknown>): string {
  const name = text(d.channel);
  return name === null ? "a deleted channel" : `"${name}"`;
}

/** What the alert is about, as a person names it: a channel's name rather than its id. */
export function subjectName(kind: string, subject: string, details: unknown): string {
  const d = (details ?? {}) as Record<string, unknown>;
  if (kind === "channel_failing" || (kind === "outbox_failed" && d.channel_id !== undefined))
    return `channel ${channelName(d)}`;
  return subject;
}
