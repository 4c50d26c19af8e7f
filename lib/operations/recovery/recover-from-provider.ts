import "server-only";
// Catching up after a restore (docs/backup.md, "After a restore"). A database restored to a point
// in time T has lost every change acknowledged after T, and the provider will not send those
// events again on its own: we answered 2xx. It still has them in its delivery history, though, and
// our claims make a repeat harmless. So:
//   1. list the provider's deliveries to our hook since T minus a margin (an attempt that started
//      before T may have committed after it; the two clocks differ), as events;
//   2. ask the provider to redeliver each one, through the ordinary webhook path: an event the
//      restore kept is absorbed by its claim (a duplicate), one it lost is applied again, in
//      whatever order the redeliveries arrive (the ordering rules make every order end alike);
//   3. wait until each has been answered 2xx here, then run the drift check against the
//      provider's own key state, which must find nothing.
// Nothing here writes a key or a claim itself, and no transaction spans a provider call, so it
// runs beside live traffic and the worker, and running it twice is harmless (the second run
// finds every event claimed). A refusal, a provider that does not answer, an incomplete run: each
// says so in plain words and is audited.
import { recordAudit, type AuditActor } from "../../core/audit/record-audit";
import { prisma, type Db } from "../../core/db/client";
import { runDriftCheck } from "../drift/run-drift-check";
import { env } from "../../core/config/env";
import { AppError } from "../../core/errors";
import type { LedgerOutcome } from "../../core/vocabulary";
import { describeError, log } from "../../core/log";
import { providerClientFromEnv, type ProviderClient } from "../provider/client";
import { ProviderError } from "../provider/errors";
import { getRegisteredHookId } from "../provider/webhook-registration";
import { providerEventsSince, type ProviderEvent } from "../provider/provider-events-since";

type RecoveryProvider = Pick<ProviderClient, "listDeliveries" | "redeliver" | "listKeys">;

type RecoveryProgress =
  | { phase: "listing"; attempts: number }
  | { phase: "redelivering"; done: number; total: number }
  | { phase: "waiting"; landed: number; total: number }
  | { phase: "drift" };

export type RecoverOptions = {
  actor: AuditActor;
  /** The point in time the database was restored to. */
  since: Date;
  /** List and compare only: nothing is redelivered, no drift check runs. */
  dryRun: boolean;
  /** Defaults: PROVIDER_URL's client, our registered hook, the settings' margin and history. */
  provider?: RecoveryProvider;
  hookId?: string;
  marginMinutes?: number;
  historyDays?: number;
  /** Give up waiting when no redelivered event has reached us for this long. Default 60 s. */
  stallTimeoutMs?: number;
  /** Ask again for the events not answered yet when nothing has arrived for this long. Default 15 s. */
  resendAfterMs?: number;
  /** Rounds of redelivery requests at most, the first included. Default 3. */
  maxRounds?: number;
  /** Redelivery requests in flight at once. Default 4. */
  concurrency?: number;
  now?: () => Date;
  onProgress?: (progress: RecoveryProgress) => void;
};

type RecoveryResult = {
  since: Date;
  /** since minus the margin: where the provider's history was read from. */
  from: Date;
  dryRun: boolean;
  /** Events the provider delivered (or tried to) since `from`, and their attempts. */
  events: number;
  attempts: number;
  /** Events it considers delivered (an attempt answered 2xx). */
  acknowledged: number;
  /** Events with no claim here when the run started: the restore lost them. */
  missing: number;
  /** Of those, claimed again by this run, by outcome (applied, stale, quarantined, ignored). */
  appliedAgain: number;
  outcomes: Partial<Record<LedgerOutcome, number>>;
  /** Events the restore kept whose redelivery was answered here ("duplicate"). */
  absorbed: number;
  /** Rounds of redelivery requests (more than 1 when some were not answered here in time). */
  rounds: number;
  /** Redelivery requests made, every round. */
  requested: number;
  /** Redelivered, but not answered 2xx here before the wait gave up (a few, by id). */
  notLanded: { count: number; examples: string[] };
  drift: { runId: string; status: string; differences: number } | null;
  durationMs: number;
  /** Where the time went: listing the history, asking for the redeliveries (first round), waiting for them, the drift check. */
  phasesMs: { list: number; redeliver: number; wait: number; drift: number };
};

const AUDIT_ACTION = "recovery.run";

export async function recoverFromProvider(options: RecoverOptions, db: Db = prisma): Promise<RecoveryResult> {
  const started = performance.now();
  const window = recoveryWindow(options);
  const audit = recoveryAudit(options, window, db);
  const refusal = outOfHistory(window);
  if (refusal) return refuse(audit, refusal);
  const hookId = options.hookId ?? (await getRegisteredHookId(db));
  if (!hookId)
    return refuse(
      audit,
      "no webhook is registered with the provider in this database, so there is no delivery history to ask for",
    );
  const provider = options.provider ?? providerClientFromEnv();
  const run: RecoveryRun = { options, db, provider, hookId, window, audit, requested: 0 };
  const timer = phaseTimer();

  // 1. What the provider delivered since `from`, and which of it the restore lost.
  const { events, claimedBefore, missing, base } = await listWhatWasDelivered(run, timer);
  if (options.dryRun) {
    await audit("dry_run", { events: base.events, missing: base.missing });
    return { ...base, ...nothingDone(), durationMs: Math.round(performance.now() - started), phasesMs: timer.phasesMs };
  }

  // 2. Redeliver every event. The receipts of this run are those written after this mark.
  const receiptMark = await latestReceiptId(db);
  timer.restart();
  await askForRedeliveries(run, base, events, 1);
  timer.end("redeliver");

  // 3. Wait until each has been answered 2xx here.
  const { waiting, rounds } = await waitForRedeliveries(run, base, events, receiptMark);
  timer.end("wait");
  const claimedAfter = await claimsOf(missing, db);
  const notLanded = [...waiting.values()].map((e) => `${e.tenantId}/${e.eventId}`);

  // 4. Compare with the provider's own key state.
  options.onProgress?.({ phase: "drift" });
  timer.restart();
  const drift = await checkDrift(run);
  timer.end("drift");

  const result = {
    ...base,
    dryRun: false,
    appliedAgain: claimedAfter.size,
    outcomes: countByOutcome(claimedAfter),
    absorbed: events.filter((e) => claimedBefore.has(keyOf(e)) && !waiting.has(keyOf(e))).length,
    rounds,
    requested: run.requested,
    notLanded: { count: notLanded.length, examples: notLanded.slice(0, 10) },
    drift,
    durationMs: Math.round(performance.now() - started),
    phasesMs: timer.phasesMs,
  } satisfies RecoveryResult;
  await recordRecovery(run, result);
  return result;
}

/** The dry run's result beside what it listed: nothing asked for, nothing compared. */
const nothingDone = () =>
  ({
    dryRun: true,
    appliedAgain: 0,
    outcomes: {},
    absorbed: 0,
    notLanded: { count: 0, examples: [] },
    rounds: 0,
    requested: 0,
    drift: null,
  }) satisfies Partial<RecoveryResult>;

/** The stretch of the provider's history a run reads, and what bounds it. */
type RecoveryWindow = {
  since: Date;
  /** since minus the margin. */
  from: Date;
  /** When the run started (the wall clock): the end of the window. */
  at: Date;
  marginMinutes: number;
  historyDays: number;
};

function recoveryWindow(options: RecoverOptions): RecoveryWindow {
  const config = env();
  const marginMinutes = options.marginMinutes ?? config.RECOVERY_MARGIN_MINUTES;
  const historyDays = options.historyDays ?? config.PROVIDER_HISTORY_DAYS;
  const since = options.since;
  const from = new Date(since.getTime() - marginMinutes * 60_000);
  const at = (options.now ?? (() => new Date()))();
  return { since, from, at, marginMinutes, historyDays };
}

/** Why the provider cannot list this window (a `--since` in the future, or older than its history), or null. */
function outOfHistory({ since, from, at, marginMinutes, historyDays }: RecoveryWindow): string | null {
  if (since.getTime() > at.getTime())
    return `--since ${since.toISOString()} is in the future: give the point in time the database was restored to`;
  const historyStart = new Date(at.getTime() - historyDays * 86_400_000);
  if (from < historyStart)
    return (
      `the provider keeps ${historyDays} days of delivery history (PROVIDER_HISTORY_DAYS), so it can no longer list ` +
      `what it delivered between ${from.toISOString()} (--since minus the ${marginMinutes}-minute margin) and ` +
      `${historyStart.toISOString()}: restore a newer backup, or set PROVIDER_HISTORY_DAYS to what your provider really keeps`
    );
  return null;
}

/** Appends this run's outcome to the audit log, with its window. */
type RecoveryAudit = (outcome: string, details: Record<string, unknown>) => Promise<void>;

function recoveryAudit(options: RecoverOptions, window: RecoveryWindow, db: Db): RecoveryAudit {
  const since = window.since.toISOString();
  return (outcome, details) =>
    recordAudit(
      {
        actor: options.actor,
        action: AUDIT_ACTION,
        target: `since ${since}`,
        outcome,
        details: { since, from: window.from.toISOString(), dry_run: options.dryRun, ...details },
      },
      db,
    );
}

async function refuse(audit: RecoveryAudit, message: string): Promise<never> {
  await audit("refused", { reason: message });
  throw new AppError("bad_request", message);
}

/** One run past its refusals: where it asks, and what it has asked for so far. */
type RecoveryRun = {
  options: RecoverOptions;
  db: Db;
  provider: RecoveryProvider;
  hookId: string;
  window: RecoveryWindow;
  audit: RecoveryAudit;
  /** Redelivery requests made, every round. */
  requested: number;
};

/** Where the time went, phase by phase; the time between a phase's end and a restart is nobody's. */
function phaseTimer() {
  const phasesMs = { list: 0, redeliver: 0, wait: 0, drift: 0 };
  let phaseStarted = performance.now();
  return {
    phasesMs,
    restart() {
      phaseStarted = performance.now();
    },
    end(phase: keyof typeof phasesMs) {
      phasesMs[phase] = Math.round(performance.now() - phaseStarted);
      phaseStarted = performance.now();
    },
  };
}

/** A provider that failed us: audited, logged, and thrown as `unavailable` with what to do now. */
async function providerFailed(
  run: RecoveryRun,
  doing: string,
  error: unknown,
  advice: string,
  details: Record<string, unknown> = {},
): Promise<never> {
  // Our client's own words (the provider's address, its status or the network error); anything
  // else is a bug, logged, never shown.
  const said = error instanceof ProviderError ? error.message : "an unexpected error; see the log";
  log.warn("recover: the provider failed", { doing, error: describeError(error) });
  await run.audit("failed", { ...details, error: describeError(error) });
  throw new AppError("unavailable", `asking the provider failed while ${doing} (${said}). ${advice}`, {
    cause: error,
  });
}

/** Step 1: the events the provider delivered (or tried to) since `from`, and those with no claim here. */
async function listWhatWasDelivered(run: RecoveryRun, timer: ReturnType<typeof phaseTimer>) {
  const listed = await listDeliveredEvents(run);
  const { events } = listed;
  timer.end("list");
  const claimedBefore = await claimsOf(events, run.db);
  const missing = events.filter((e) => !claimedBefore.has(keyOf(e)));
  const base = {
    since: run.window.since,
    from: run.window.from,
    events: events.length,
    attempts: listed.attempts,
    acknowledged: events.filter((e) => e.acknowledged).length,
    missing: missing.length,
  };
  return { events, claimedBefore, missing, base };
}

async function listDeliveredEvents(run: RecoveryRun): ReturnType<typeof providerEventsSince> {
  try {
    return await providerEventsSince({
      provider: run.provider,
      hookId: run.hookId,
      since: run.window.from,
      onPage: (attempts) => run.options.onProgress?.({ phase: "listing", attempts }),
    });
  } catch (error) {
    return providerFailed(
      run,
      "listing its delivery history",
      error,
      "Nothing was redelivered and nothing changed here: run the same command again once the provider answers.",
    );
  }
}

/** One round of redelivery requests, a few in flight at once; a failure ends the run. */
async function askForRedeliveries(
  run: RecoveryRun,
  counts: { events: number; missing: number },
  batch: ProviderEvent[],
  round: number,
): Promise<void> {
  const runKey = run.window.at.toISOString();
  let done = 0;
  try {
    await inPool(batch, run.options.concurrency ?? 4, async (event) => {
      // Per run and round: a retried request is one redelivery; a new round or run sends again.
      await run.provider.redeliver({
        hookId: run.hookId,
        deliveryId: event.deliveryId,
        idempotencyKey: `keyhook-recover-${runKey}-${round}-${event.deliveryId}`,
      });
      run.requested++;
      done++;
      run.options.onProgress?.({ phase: "redelivering", done, total: batch.length });
    });
  } catch (error) {
    return providerFailed(
      run,
      `redelivering (${run.requested} of ${batch.length} asked for)`,
      error,
      "What was asked for is applied or absorbed as it arrives, and nothing was lost: run the same command again once the provider answers (a second run is safe).",
      { ...counts, requested: run.requested },
    );
  }
}

/**
 * Polls our receipts until every event was answered 2xx here. A provider does not retry a
 * redelivery it made by hand: one our app answered 503 (busy) or too late is asked for again, once
 * nothing has arrived for a while, a few times at most; a duplicate of a slow one is absorbed.
 * Gives up when nothing arrives for the stall timeout; returns the events still waiting.
 */
async function waitForRedeliveries(
  run: RecoveryRun,
  counts: { events: number; missing: number },
  events: ProviderEvent[],
  receiptMark: bigint,
): Promise<{ waiting: Map<string, ProviderEvent>; rounds: number }> {
  const stallTimeoutMs = run.options.stallTimeoutMs ?? 60_000;
  const resendAfterMs = Math.min(run.options.resendAfterMs ?? 15_000, stallTimeoutMs);
  const maxRounds = run.options.maxRounds ?? 3;
  let round = 1;
  let waiting = new Map(events.map((e) => [keyOf(e), e]));
  let lastLanding = performance.now();
  while (waiting.size > 0) {
    const landed = await answeredAmong([...waiting.values()], receiptMark, run.db);
    if (landed.size > 0) {
      lastLanding = performance.now();
      waiting = new Map([...waiting].filter(([key]) => !landed.has(key)));
      run.options.onProgress?.({ phase: "waiting", landed: events.length - waiting.size, total: events.length });
      continue;
    }
    const idleMs = performance.now() - lastLanding;
    if (round < maxRounds && idleMs > resendAfterMs) {
      round++;
      const again = [...waiting.values()];
      log.info("recover: asking again for redeliveries not answered here", { round, events: again.length });
      await askForRedeliveries(run, counts, again, round);
      lastLanding = performance.now();
      continue;
    }
    if (idleMs > stallTimeoutMs) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { waiting, rounds: round };
}

/** The drift check against the provider's own key state; its failure is a result ("failed"), logged. */
async function checkDrift(run: RecoveryRun): Promise<NonNullable<RecoveryResult["drift"]>> {
  try {
    const drift = await runDriftCheck(
      { provider: run.provider, trigger: "cli", requestedBy: `npm run recover (${run.options.actor.label})` },
      run.db,
    );
    return { runId: drift.id, status: drift.status, differences: "differences" in drift ? drift.differences : 0 };
  } catch (error) {
    log.warn("recover: the drift check failed", { error: describeError(error) });
    return { runId: "", status: "failed", differences: 0 };
  }
}

function countByOutcome(claims: Map<string, LedgerOutcome>): Partial<Record<LedgerOutcome, number>> {
  const outcomes: Partial<Record<LedgerOutcome, number>> = {};
  for (const outcome of claims.values()) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  return outcomes;
}

/** Audits the run (complete only when everything landed and the drift check is clean) and logs it. */
async function recordRecovery(
  run: RecoveryRun,
  result: RecoveryResult & { drift: NonNullable<RecoveryResult["drift"]> },
): Promise<void> {
  const { drift } = result;
  const complete = result.notLanded.count === 0 && drift.status === "done" && drift.differences === 0;
  await run.audit(complete ? "ok" : "incomplete", {
    events: result.events,
    attempts: result.attempts,
    applied_again: result.appliedAgain,
    outcomes: result.outcomes,
    absorbed: result.absorbed,
    rounds: result.rounds,
    requested: result.requested,
    not_landed: result.notLanded,
    drift,
    duration_ms: result.durationMs,
    phases_ms: result.phasesMs,
  });
  log.info("recovery run", {
    since: result.since.toISOString(),
    events: result.events,
    applied_again: result.appliedAgain,
    absorbed: result.absorbed,
    not_landed: result.notLanded.count,
    drift_differences: drift.differences,
  });
}

const keyOf = (event: { tenantId: string; eventId: string }) => `${event.tenantId}\n${event.eventId}`;

/** Our claims among these events: key → outcome. */
async function claimsOf(events: ProviderEvent[], db: Db): Promise<Map<string, LedgerOutcome>> {
  const found = new Map<string, LedgerOutcome>();
  for (let i = 0; i < events.length; i += 5_000) {
    const chunk = events.slice(i, i + 5_000);
    const rows = await db.$queryRaw<{ tenant_id: string; event_id: string; outcome: LedgerOutcome }[]>`
      SELECT p.tenant_id, p.event_id, p.outcome
        FROM unnest(${chunk.map((e) => e.tenantId)}::text[], ${chunk.map((e) => e.eventId)}::text[]) AS e(tenant_id, event_id)
        JOIN processed_events p ON p.tenant_id = e.tenant_id AND p.event_id = e.event_id`;
    for (const row of rows) found.set(keyOf({ tenantId: row.tenant_id, eventId: row.event_id }), row.outcome);
  }
  return found;
}

async function latestReceiptId(db: Db): Promise<bigint> {
  const [row] = await db.$queryRaw<{ id: bigint }[]>`SELECT coalesce(max(id), 0)::bigint AS id FROM receipts`;
  return row?.id ?? 0n;
}

/** The events among these with a 2xx receipt written after `mark`. */
async function answeredAmong(events: ProviderEvent[], mark: bigint, db: Db): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < events.length; i += 5_000) {
    const chunk = events.slice(i, i + 5_000);
    const rows = await db.$queryRaw<{ tenant_id: string; event_id: string }[]>`
      SELECT DISTINCT r.tenant_id, r.event_id
        FROM unnest(${chunk.map((e) => e.tenantId)}::text[], ${chunk.map((e) => e.eventId)}::text[]) AS e(tenant_id, event_id)
        JOIN receipts r ON r.event_id = e.event_id AND r.tenant_id = e.tenant_id
       WHERE r.id > ${mark} AND r.status BETWEEN 200 AND 299`;
    for (const row of rows) found.add(keyOf({ tenantId: row.tenant_id, eventId: row.event_id }));
  }
  return found;
}

/** Runs `work` over the items, `size` at a time; the first failure stops taking new items and is thrown. */
async function inPool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async () => {
    while (failure === null && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, lane));
  if (failure) throw (failure as { error: unknown }).error;
}
