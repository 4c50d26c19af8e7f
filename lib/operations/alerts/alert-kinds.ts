// Every kind of alert, declared once: its label in the alert center and what raises and clears it.
// The `alerts` table's kind column holds these strings (the notification channels read them too).
export const ALERT_KINDS = {
  quarantine: "Quarantined events",
  superseded_key: "Superseded key still live",
  sequence_gap: "Sequence gap past the retry horizon",
  drift_provider_active: "Drift: live at the provider, not here",
  drift_local_active: "Drift: live here, not at the provider",
  purge_failed: "Retention purge failed",
  outbox_failed: "Outbox message failed for good",
  provider_unreachable: "Provider unreachable",
  delivery_failure_rate: "Delivery failure rate high",
  // Raised by the notifier (lib/notifications) when an alert channel keeps failing.
  channel_failing: "Alert channel failing",
  // Raised by the nightly audit check (lib/operations/audit) when the hash chain does not verify.
  audit_chain_broken: "Audit log tampered with",
} as const;

export type AlertKind = keyof typeof ALERT_KINDS;

/**
 * Kinds about the platform as a whole, raised without a district: a district admin never sees
 * them (lib/core/tenancy/alert-scope.ts), so their pages do not offer them either.
 */
const PLATFORM_ALERT_KINDS = [
  "purge_failed",
  "provider_unreachable",
  "delivery_failure_rate",
  "channel_failing",
] as const satisfies readonly AlertKind[];

export function isPlatformAlertKind(kind: string): boolean {
  return (PLATFORM_ALERT_KINDS as readonly string[]).includes(kind);
}

export const DRIFT_KINDS = ["drift_provider_active", "drift_local_active"] as const satisfies readonly AlertKind[];
export type DriftKind = (typeof DRIFT_KINDS)[number];

export const ALERT_STATES = ["open", "acknowledged", "resolved"] as const;
export type AlertState = (typeof ALERT_STATES)[number];

export function isDriftKind(value: unknown): value is DriftKind {
  return typeof value === "string" && (DRIFT_KINDS as readonly string[]).includes(value);
}

/** How a human (or a job) closed an alert. */
export const RESOLUTIONS = {
  resolved: "Resolved",
  explained: "Marked as explained",
  revoke_requested: "Revoke sent to the provider (outbox)",
  recorded_provider_state: "Recorded the provider's state here",
  resent: "Sent again (same idempotency key)",
  condition_cleared: "Cleared by itself (the condition no longer holds)",
} as const;
export type AlertResolution = keyof typeof RESOLUTIONS;

/** Who auto-resolves alerts, as it appears in "resolved by". */
export const SWEEP_ACTOR = "alert sweep";
export const DRIFT_ACTOR = "drift check";
