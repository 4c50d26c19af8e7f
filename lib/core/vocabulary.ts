// The words the ledger and the keys are written in, declared once for the TypeScript side. The
// SQL side repeats them where PostgreSQL needs literals (the CHECK constraints of the
// key_invariants migration, prisma/sql/keyhook_apply_event.sql and keyhook_key_status_is_terminal.sql);
// test/core/db/vocabulary.integration.test.ts fails when the two sides disagree.

/** The event types the ingest applies; any other type is claimed and recorded as "ignored". */
export const EVENT_TYPES = ["key.created", "key.rotated", "key.revoked"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What the ledger records for a claimed event once it is processed ("pending" only inside the claim). */
export const LEDGER_OUTCOMES = ["applied", "stale", "quarantined", "ignored"] as const;
export type LedgerOutcome = (typeof LEDGER_OUTCOMES)[number];

/** What applying one delivery yields: a ledger outcome, or "duplicate" for an event already claimed. */
export const INGEST_OUTCOMES = ["applied", "duplicate", "stale", "quarantined", "ignored"] as const;
export type IngestOutcome = (typeof INGEST_OUTCOMES)[number];

/** The status of a key; only "active" is usable, "superseded" is active-looking and flagged for a human. */
export const KEY_STATUSES = ["active", "superseded", "rotated", "revoked"] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** Statuses of a key that still works at the provider: "active", and "superseded" awaiting its deactivation. */
export const LIVE_KEY_STATUSES = ["active", "superseded"] as const satisfies readonly KeyStatus[];
type LiveKeyStatus = (typeof LIVE_KEY_STATUSES)[number];

/**
 * Terminal statuses: a rotated or revoked key never becomes live again (revoked outranks rotated,
 * so only rotated → revoked remains). The api_keys_terminal_status trigger enforces it
 * (prisma/sql/keyhook_key_status_is_terminal.sql).
 */
export const TERMINAL_KEY_STATUSES = ["rotated", "revoked"] as const satisfies readonly KeyStatus[];
export type TerminalKeyStatus = (typeof TERMINAL_KEY_STATUSES)[number];

export const isLiveKeyStatus = (status: string): status is LiveKeyStatus =>
  (LIVE_KEY_STATUSES as readonly string[]).includes(status);

/** Who may sign in to the dashboard (docs/design.md, "Roles"); lib/core/auth/permissions.ts says what each may do. */
export const ROLES = ["district_admin", "support", "platform_admin"] as const;
export type Role = (typeof ROLES)[number];
