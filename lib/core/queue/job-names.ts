// The queue's task names, declared once: the app enqueues by these names in SQL, the worker
// registers a handler under each (lib/operations/worker/background-jobs.ts). No imports: the app's enqueue
// path must not pull in the worker's code.
export const JOB_NAMES = [
  "outbox.drain",
  "retention.purge",
  "rollups.fold",
  "gaps.raise_alerts",
  "alerts.notify",
  "auth.purge_sign_in_records",
  "alerts.sweep",
  "drift.check",
  "provider.register_webhook",
  "provider.observe_retries",
  "audit.checkpoint",
  "audit.verify",
  "audit.stream",
] as const;

export type JobName = (typeof JOB_NAMES)[number];

/** The one waiting "drain the outbox" job every enqueue coalesces into. */
export const OUTBOX_DRAIN_KEY = "outbox.drain";
/** The drain's own follow-up at the next due row (a retry's backoff, an expired lease). */
export const OUTBOX_DRAIN_NEXT_KEY = "outbox.drain:next";
