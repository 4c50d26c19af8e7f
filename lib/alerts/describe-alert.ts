// One line per alert for the list, from what its sweep or check stored in details.
const text = (value: unknown) => (typeof value === "string" || typeof value === "number" ? String(value) : null);

export function describeAlert(kind: string, subject: string, details: unknown, count: number): string {
  const d = (details ?? {}) as Record<string, unknown>;
  if (typeof d.summary === "string") return d.summary;
  switch (kind) {
    case "quarantine":
      return `${count} quarantined event(s) for ${text(d.key_id) ?? "no key"} in ${text(d.tenant_id) ?? "?"}${d.last_reason ? `: ${text(d.last_reason)}` : ""}`;
    case "superseded_key":
      return `${text(d.key_id) ?? subject} was superseded${d.superseded_by ? ` by ${text(d.superseded_by)}` : ""} and may still work`;
    case "sequence_gap":
      return `sequences ${text(d.from_sequence)}–${text(d.to_sequence)} of ${text(d.tenant_id)} never arrived`;
    case "outbox_failed":
      return `${text(d.command) ?? "a provider call"} for ${text(d.tenant_id) ?? "?"} failed after ${text(d.attempts) ?? "?"} attempts`;
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
