import "server-only";
// Every background job of the worker, one line each: the task, what it runs, and when. The queue
// (graphile-worker, start-job-worker.ts) gives each of them retries with exponential backoff, and
// a cron schedule is queued exactly once per timestamp across all workers.
//   cron:    crontab time fields, evaluated in UTC ("0 3 * * *": 03:00 UTC daily);
//   everyMs: re-queued that long after each run (periods below cron's one minute); give such a
//            job a cron too, as the safety net that restarts a chain lost with a killed worker.
//   atStart: queued when a worker starts, with that payload (a schedule the queue has never seen
//            is not backfilled: a new install would otherwise wait for its first slot).
import { sweepAlerts, type SweepResult } from "./sweep-alerts";
import { purgeSignInRecords } from "../retention/purge-sign-in-records";
import { runDriftJob } from "../drift/drift-job";
import type { DriftCheckResult } from "../drift/run-drift-check";
import type { Env } from "../../core/config/env";
import { raiseGapAlerts } from "../alerts/raise-gap-alerts";
import { log } from "../../core/log";
import { notifyAlerts } from "../notifications/notify-alerts";
import { drainOutbox } from "../outbox/drain-outbox";
import { providerClientFromEnv, type ProviderClient } from "../provider/client";
import { keepWebhookRegistered } from "../provider/keep-webhook-registered";
import { observeProviderRetries } from "../provider/observe-retries";
import { getRegisteredHookId } from "../provider/webhook-registration";
import { runScheduledPurge } from "../retention/scheduled-purge";
import { getRetentionSettings } from "../retention/settings";
import { foldRollups } from "../rollups/fold-rollups";
import { enqueueJob } from "../../core/queue/enqueue-job";
import { checkpointAuditLog } from "../audit/checkpoint-audit-log";
import { verifyLiveAuditLog } from "../audit/verify-live-audit-log";
import { streamAuditLog, type StreamResult } from "../audit/stream-audit-log";
import type { ChainVerdict } from "../../core/audit/verify-audit-chain";
import type { JobName } from "../../core/queue/job-names";

type JobContext = {
  /** A cron job's timestamp (its schedule slot), or the slot an atStart payload names; else null. */
  scheduledFor: Date | null;
  payload: Record<string, unknown>;
};

export type BackgroundJob = {
  task: JobName;
  run: (context: JobContext) => Promise<void>;
  cron?: string;
  everyMs?: number;
  /** Attempts before the queue gives the job up (default 25, backing off up to ~6 h). */
  maxAttempts?: number;
  /** A worker starting this long after a missed cron slot still runs it (default: never). */
  backfillMs?: number;
  atStart?: (now: Date) => Record<string, unknown>;
};

const HOUR_MS = 3_600_000;

export function backgroundJobs(deps: { config: Env; outboxClient: ProviderClient }): BackgroundJob[] {
  const { config, outboxClient } = deps;
  const webhookUrl = config.PROVIDER_WEBHOOK_URL;
  return [
    { task: "outbox.drain", run: () => drainOutbox({ client: outboxClient }).then(logDrain), cron: "* * * * *" },
    {
      task: "retention.purge",
      run: ({ scheduledFor }) =>
        runScheduledPurge({ scheduledFor: scheduledFor ?? startOfHour(new Date()) }).then(() => undefined),
      cron: `0 ${config.PURGE_HOUR_UTC} * * *`,
      maxAttempts: 5,
      backfillMs: 20 * HOUR_MS,
      // The latest slot, whatever its age: a new install (or a worker down for days) purges now,
      // and a slot that already ran is not purged twice (scheduled-purge.ts).
      atStart: (now) => ({ scheduledFor: latestDailySlot(now, config.PURGE_HOUR_UTC).toISOString() }),
    },
    // The dashboard's hourly counts: the pages stay exact without it, only slower as the unfolded tail grows.
    {
      task: "rollups.fold",
      run: () => foldRollups().then(() => undefined),
      everyMs: config.ROLLUP_INTERVAL_MS,
      cron: "* * * * *",
    },
    { task: "gaps.raise_alerts", run: () => raiseGapAlerts().then(logGapAlerts), cron: "* * * * *" },
    {
      task: "alerts.notify",
      run: () => notifyAlerts().then(logNotify),
      everyMs: config.ALERT_NOTIFY_INTERVAL_MS,
      cron: "* * * * *",
    },
    // Quiet sign-in throttle rows and old failure counters (lib/operations/retention/purge-sign-in-records.ts), nightly.
    {
      task: "auth.purge_sign_in_records",
      run: () => purgeSignInRecords({ now: new Date() }).then(logSignInPurge),
      cron: `10 ${config.PURGE_HOUR_UTC} * * *`,
      maxAttempts: 5,
      backfillMs: 20 * HOUR_MS,
    },
    // The alert center's condition-based alerts (quarantine counts, superseded keys, gaps, failed
    // outbox rows and purges, provider unreachable, delivery failure rate), raised and resolved.
    {
      task: "alerts.sweep",
      run: () => sweepAlerts().then(logSweep),
      everyMs: config.ALERT_SWEEP_INTERVAL_MS,
      cron: "* * * * *",
    },
    // The drift check: a run a platform admin requested (or an interrupted one), else one every
    // DRIFT_CHECK_INTERVAL_HOURS. A run is leased (lib/operations/drift/drift-runs.ts), so a minute's job that
    // finds one running does nothing. Its own client: list-keys retries 429s (the outbox's does not).
    {
      task: "drift.check",
      run: () => runDriftJob({ provider: providerClientFromEnv() }).then(logDrift),
      cron: "* * * * *",
    },
    // The audit log's signed checkpoint, hourly and at start (docs/audit.md); the purge signs its own.
    {
      task: "audit.checkpoint",
      run: () => checkpointAuditLog().then(logCheckpoint),
      cron: "0 * * * *",
      atStart: () => ({}),
    },
    // The audit stream to each SIEM destination, every few seconds (a failing one waits its backoff).
    {
      task: "audit.stream",
      run: () => streamAuditLog().then(logStream),
      everyMs: 5_000,
      cron: "* * * * *",
    },
    // The live audit log against its checkpoints, nightly after the purge; a break alerts every channel.
    {
      task: "audit.verify",
      run: () => verifyLiveAuditLog().then(logVerification),
      cron: `40 ${config.PURGE_HOUR_UTC} * * *`,
      maxAttempts: 5,
      backfillMs: 20 * HOUR_MS,
    },
    // The longest retry the provider's history shows: the retention rule's horizon never goes below it.
    {
      task: "provider.observe_retries",
      run: observeRetries,
      cron: "23 * * * *",
      atStart: () => ({}),
    },
    // Our webhook at the provider (PROVIDER_WEBHOOK_URL): confirmed or registered at start and
    // hourly; after a failure the job queues itself again with a capped backoff (a minute at most).
    ...(webhookUrl
      ? [
          {
            task: "provider.register_webhook",
            run: ({ payload }) => keepRegistered(webhookUrl, Number(payload.attempt) || 1),
            cron: "7 * * * *",
            atStart: () => ({ attempt: 1 }),
          } satisfies BackgroundJob,
        ]
      : []),
  ];
}

async function keepRegistered(url: string, attempt: number): Promise<void> {
  // A person may be waiting on the first registration: short calls, the job retries.
  const client = providerClientFromEnv({ maxRetries: 0, timeoutMs: 5_000 });
  const result = await keepWebhookRegistered({ url, client, attempt });
  if (result.outcome === "failed")
    await enqueueJob({
      task: "provider.register_webhook",
      jobKey: "provider.register_webhook",
      payload: { attempt: attempt + 1 },
      runAt: new Date(Date.now() + result.retryInMs),
    });
}

async function observeRetries(): Promise<void> {
  const hookId = await getRegisteredHookId();
  if (!hookId) return;
  // Over the horizon in force and a day: a retry longer than that shows as announced (next_retry_at).
  const { horizonFloor } = await getRetentionSettings();
  const { observed, raised } = await observeProviderRetries({
    client: providerClientFromEnv({ maxRetries: 1 }),
    hookId,
    lookbackHours: horizonFloor.hours + 24,
  });
  if (observed && raised)
    log.info("longest retry in the provider's history", { span_ms: observed.spanMs, event_id: observed.eventId });
}

/** The latest daily slot at `hourUtc` at or before `now`. */
function latestDailySlot(now: Date, hourUtc: number): Date {
  const slot = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hourUtc));
  return slot > now ? new Date(slot.getTime() - 24 * HOUR_MS) : slot;
}

function startOfHour(now: Date): Date {
  return new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
}

function logDrain(result: { sent: number; retrying: number; failed: number; nextDueAt: Date | null }): void {
  if (result.sent + result.retrying + result.failed > 0)
    log.info("outbox drained", { ...result, next_due_at: result.nextDueAt?.toISOString() ?? null });
}

function logGapAlerts(result: { raised: number; resolved: number }): void {
  if (result.raised > 0 || result.resolved > 0) log.info("sequence gap alerts", result);
}

function logSignInPurge(result: { addressRows: number; failureWindows: number }): void {
  if (result.addressRows + result.failureWindows > 0) log.info("sign-in records purged", result);
}

function logNotify(result: { staged: number; byEvent: Record<string, number> }): void {
  if (result.staged > 0) log.info("alert notifications staged", { staged: result.staged, ...result.byEvent });
}

function logSweep(result: SweepResult): void {
  const changed = Object.entries(result).filter(([, r]) => r.raised > 0 || r.resolved > 0);
  if (changed.length > 0) log.info("alert sweep", Object.fromEntries(changed));
}

function logCheckpoint(result: { sealed: number; checkpointId: bigint; staged: number }): void {
  log.info("audit checkpoint signed", { ...result, checkpointId: result.checkpointId.toString() });
}

function logStream(result: StreamResult): void {
  if (result.sent + result.failed > 0) log.info("audit stream", result);
}

function logVerification(verdict: ChainVerdict): void {
  if (verdict.ok) log.info("audit log verified", { entries: verdict.entries, last_seq: verdict.last?.seq ?? null });
  else log.error("audit log does not verify", { kind: verdict.kind, seq: verdict.seq, message: verdict.message });
}

function logDrift(result: DriftCheckResult | null): void {
  if (result && result.status !== "busy") log.info("drift check", { ...result });
}
