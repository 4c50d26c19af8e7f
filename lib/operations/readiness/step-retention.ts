import "server-only";
// Step 4: the claims outlive every retry (window > the provider's retry horizon + margin), and the
// purge keeps the ledger bounded (it ran within its daily schedule). A window at or below the
// horizon lets a late retry find no claim and apply twice; a purge that stopped lets the ledger
// grow until ingest slows down. The horizon is the one in force: never below
// PROVIDER_RETRY_HORIZON_HOURS nor the longest retry the provider's history shows
// (lib/core/retention/retry-horizon.ts), whatever was declared on the Retention form.
import { env } from "../../core/config/env";
import { getRetentionSettings } from "../retention/settings";
import { retentionWindowHours, retentionWindowProblem } from "../../core/retention/retention-window";
import { stepReporter, type ReadinessContext, type StepResult } from "./types";

const TITLE = "Retention outlasts the provider's retries, and the purge runs on schedule";
/** The purge runs daily (PURGE_HOUR_UTC, or the platform cron); an hour of slack for a long run. */
const PURGE_MAX_AGE_HOURS = 25;

export async function checkRetention(context: ReadinessContext): Promise<StepResult> {
  const started = Date.now();
  const now = context.now();
  const settings = await getRetentionSettings(context.db);
  const { windowHours, neededHours } = retentionWindowHours(settings);
  const lastRun = await context.db.purgeRun.findFirst({ where: { status: "ran" }, orderBy: { startedAt: "desc" } });
  const ageHours = lastRun ? (now.getTime() - (lastRun.finishedAt ?? lastRun.startedAt).getTime()) / 3_600_000 : null;
  const evidence = {
    retention_window_hours: windowHours,
    retry_horizon_hours: settings.retryHorizonHours,
    retry_horizon_floor: {
      hours: settings.horizonFloor.hours,
      bound: settings.horizonFloor.bound,
      explanation: settings.horizonFloor.explanation,
    },
    margin_hours: settings.marginHours,
    last_purge: lastRun
      ? { id: lastRun.id.toString(), started_at: lastRun.startedAt.toISOString(), trigger: lastRun.trigger }
      : null,
    purge_hour_utc: env().PURGE_HOUR_UTC,
  };
  const done = stepReporter("retention", TITLE, evidence, started);

  // The payload's own limit is the settings form's business, not this step's.
  const problem = retentionWindowProblem({ ...settings, payloadRetentionDays: undefined });
  if (problem) {
    return done(
      false,
      problem.message,
      `Raise the retention window above ${neededHours} h (Retention page or RETENTION_DAYS), or a retry arriving late would be applied twice.`,
    );
  }
  if (ageHours === null) {
    return done(
      false,
      "no completed purge run is recorded",
      "Start the worker (it purges at its start, then nightly at PURGE_HOUR_UTC) or the platform cron calling /api/cron/purge; `npm run purge` runs one now.",
    );
  }
  if (ageHours > PURGE_MAX_AGE_HOURS) {
    return done(
      false,
      `the last completed purge was ${ageHours.toFixed(1)} h ago (more than ${PURGE_MAX_AGE_HOURS} h)`,
      "The daily purge has stopped: check the worker's log (or the cron calling /api/cron/purge) and the Retention page's failed runs.",
    );
  }
  return done(
    true,
    `window ${windowHours} h > horizon ${settings.retryHorizonHours} h + margin ${settings.marginHours} h; last purge ${ageHours.toFixed(1)} h ago`,
    null,
  );
}
