// The shapes the retry-readiness check passes around: what each step needs and what it reports.
import type { Db } from "../../core/db/client";
import type { ProviderClient } from "../provider/client";

export const READINESS_STEP_IDS = [
  "duplicate_delivery",
  "forced_failure",
  "delivery_history",
  "retention",
  "failover_durability",
  "backups",
] as const;
export type ReadinessStepId = (typeof READINESS_STEP_IDS)[number];

export type StepResult = {
  id: ReadinessStepId;
  title: string;
  passed: boolean;
  /** One line: what was observed. */
  summary: string;
  /** When it failed: what to fix, worded for an operator. */
  fix: string | null;
  /** Passed, but `fix` says what the deployment does not cover (it does not fail the run). */
  warning?: boolean;
  evidence: Record<string, unknown>;
  durationMs: number;
};

/**
 * A step's reporter: started now, it turns a verdict into the step's StepResult with the
 * evidence gathered meanwhile and the time the step took.
 */
export function stepReporter(
  id: ReadinessStepId,
  title: string,
  evidence: Record<string, unknown>,
  started = Date.now(),
) {
  return (passed: boolean, summary: string, fix: string | null): StepResult => ({
    id,
    title,
    passed,
    summary,
    fix,
    evidence,
    durationMs: Date.now() - started,
  });
}

/** The provider calls the check makes; a test can wrap the real client (e.g. to lose an attempt). */
export type ReadinessProvider = Pick<ProviderClient, "getWebhook" | "sendTestEvent" | "listDeliveries" | "redeliver">;

/** When the provider does not know our stored hook: what the steps that need it say. */
export function hookMissingSummary(hookId: string): string {
  return `our webhook is not registered at the provider: it does not know hook ${hookId}, so it delivers nothing to us`;
}
export const HOOK_MISSING_FIX =
  "Register it again: Settings → Register webhook now asks the provider and registers our URL when it does not know " +
  "the hook (a worker with PROVIDER_WEBHOOK_URL does the same at start and every hour). Then run the check again.";

export type ReadinessContext = {
  db: Db;
  /** Our public webhook endpoint, as the provider calls it (the check posts there too). */
  webhookUrl: string;
  provider: ReadinessProvider | null;
  hookId: string | null;
  /** The provider answered that it does not know `hookId` (asked once, before the steps). */
  hookMissing: boolean;
  /** WEBHOOK_SECRETS: the local fallback and the forced failure sign with the first one. */
  secrets: readonly string[];
  /** INGEST_TX_TIMEOUT_MS of the app under test: the forced failure holds the lock past it. */
  ingestTimeoutMs: number;
  /** How long to wait for a delivery to show up (provider queues, retries). */
  waitTimeoutMs: number;
  runId: string;
  now: () => Date;
};

/** What the duplicate step learned, for the history step to reconcile. */
export type CanaryDelivery = { eventId: string; via: "provider" | "local" } | null;
