// The audit log in people's words: what each recorded action and outcome means, and the groups
// its filters offer ("Keys: issue, rotate, revoke" rather than `key.issue`). The rows keep the
// names the services record (and a denial's row the permission it was refused); a name this file
// does not know is shown and filtered as it is.

/** Every action a service records, and every permission a denial row names. */
const AUDIT_ACTION_WORDS: Record<string, string> = {
  "key.issue": "Issue a key",
  "key.rotate": "Rotate a key",
  "key.revoke": "Revoke a key",
  "delivery.replay": "Replay or redeliver a delivery",
  "delivery.bulk_replay": "Redeliver failed deliveries",
  "alert.acknowledge": "Acknowledge an alert",
  "alert.resolve": "Resolve an alert",
  "alerts.act": "Act on an alert",
  "drift.run": "Run a drift check",
  "quarantine.resolve": "Resolve a quarantined event",
  "settings.update": "Change retention",
  "retention.edit": "Change retention",
  "webhook.register": "Register the webhook",
  "settings.manage": "Change settings",
  "alert_channel.create": "Add an alert channel",
  "alert_channel.delete": "Remove an alert channel",
  "readiness.run": "Run the readiness check",
  "user.create": "Create a user",
  "user.update": "Change a user",
  "user.disable": "Disable a user",
  "user.enable": "Enable a user",
  "user.unlock": "Unlock a user",
  "users.manage": "Manage users",
  "sign-in": "Sign in",
  "sign-out": "Sign out",
};

const SIGN_INS = ["sign-in", "sign-out"];

/** The Action filter's choices; the first is what the page shows unasked (every change, no sign-ins). */
export const AUDIT_ACTION_GROUPS = {
  changes: { label: "Every change (sign-ins left out)", except: SIGN_INS },
  keys: { label: "Keys: issue, rotate, revoke", actions: ["key.issue", "key.rotate", "key.revoke"] },
  deliveries: { label: "Replays and redeliveries", actions: ["delivery.replay", "delivery.bulk_replay"] },
  alerts: {
    label: "Alerts and drift checks",
    actions: ["alert.acknowledge", "alert.resolve", "alerts.act", "drift.run"],
  },
  quarantine: { label: "Quarantine decisions", actions: ["quarantine.resolve"] },
  settings: {
    label: "Retention, webhook and alert channels",
    actions: [
      "settings.update",
      "retention.edit",
      "webhook.register",
      "settings.manage",
      "alert_channel.create",
      "alert_channel.delete",
    ],
  },
  readiness: { label: "Readiness checks", actions: ["readiness.run"] },
  users: {
    label: "Users",
    actions: ["user.create", "user.update", "user.disable", "user.enable", "user.unlock", "users.manage"],
  },
  signins: { label: "Sign-ins and sign-outs", actions: SIGN_INS },
  all: { label: "Everything, sign-ins included", except: [] },
} as const satisfies Record<string, { label: string } & ({ actions: string[] } | { except: string[] })>;

type AuditActionGroup = keyof typeof AUDIT_ACTION_GROUPS;
export const DEFAULT_AUDIT_ACTIONS: AuditActionGroup = "changes";

/** What the outcome column says, and the Outcome filter's choices. */
const AUDIT_OUTCOME_WORDS: Record<string, string> = {
  ok: "done",
  requested: "requested: the provider's answer follows",
  accepted: "accepted by the provider",
  refused: "refused by the provider",
  failed: "failed",
  denied: "denied",
  partly_requested: "partly requested",
  unavailable: "unavailable",
};

export const AUDIT_OUTCOME_GROUPS = {
  done: { label: "Done", outcomes: ["ok", "accepted", "registered", "resolved", "revoked", "confirmed"] },
  waiting: { label: "Requested, waiting for the provider", outcomes: ["requested", "partly_requested"] },
  refused: { label: "Refused or denied", outcomes: ["refused", "denied", "rejected"] },
  failed: { label: "Failed", outcomes: ["failed", "unavailable"] },
} as const satisfies Record<string, { label: string; outcomes: string[] }>;

type AuditOutcomeGroup = keyof typeof AUDIT_OUTCOME_GROUPS;

export function auditActionWords(action: string): string {
  return AUDIT_ACTION_WORDS[action] ?? action;
}

/** "already_revoked" → "already revoked": a service's own word, spaced. */
export function auditOutcomeWords(outcome: string): string {
  return AUDIT_OUTCOME_WORDS[outcome] ?? outcome.replaceAll("_", " ");
}

export function isAuditActionGroup(value: string): value is AuditActionGroup {
  return Object.hasOwn(AUDIT_ACTION_GROUPS, value);
}

export function isAuditOutcomeGroup(value: string): value is AuditOutcomeGroup {
  return Object.hasOwn(AUDIT_OUTCOME_GROUPS, value);
}
