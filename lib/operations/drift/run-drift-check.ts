import "server-only";
// The drift check: page through the provider's keys, district by district, and compare each page
// with our rows for the same key ids (compare-keys.ts). Why it cannot slow ingest:
// - no transaction spans pages (nor a provider call): each page is one short indexed read of at
//   most `pageSize` primary keys, then single-statement alert upserts, then one progress update;
// - it never takes a district's tenant lock (it only reads; a key changing under it is seen on
//   the next run, and the alert names what each side said at the time).
// Progress (district, provider cursor, our live keys already listed) is written after every page,
// so an interrupted run (the provider rate limits past the client's patience, the process dies)
// resumes from the last recorded page. When a district is done, its drift alerts this run did not
// see again are resolved: the difference is gone.
import { prisma, type Db } from "../../core/db/client";
import type { DriftRun, Prisma } from "../../generated/prisma/client";
import { env } from "../../core/config/env";
import { describeError } from "../../core/log";
import { DRIFT_ACTOR, DRIFT_KINDS } from "../alerts/alert-kinds";
import { raiseAlert } from "../alerts/upsert-alert";
import type { ProviderClient } from "../provider/client";
import { districtWhere, EVERY_DISTRICT } from "../../core/tenancy/district-scope";
import {
  comparePage,
  describeDifference,
  fingerprintOf,
  unlistedLiveKeys,
  type DriftDifference,
  type LocalKey,
} from "./compare-keys";
import { claimDriftRun, toDriftRunSummary, type DriftRunSummary, type DriftTrigger } from "./drift-runs";
import { driftRevokeIdempotencyKey, driftSubject } from "../alerts/drift-subjects";
import { LIVE_KEY_STATUSES } from "../../core/vocabulary";

export type DriftProvider = Pick<ProviderClient, "listKeys">;

type RunDriftCheckOptions = {
  provider: DriftProvider;
  /** Continue this run (requested by the button, or interrupted); otherwise a new one is started. */
  runId?: bigint | string;
  trigger?: DriftTrigger;
  requestedBy?: string;
  /** Keys per provider page (the provider caps it); default DRIFT_PAGE_SIZE. */
  pageSize?: number;
  /** Pause between pages; default DRIFT_PAGE_PAUSE_MS. */
  pauseMs?: number;
  /** How long a page may take before another worker may take the run over. */
  leaseMs?: number;
  /** Stop (status interrupted) after this many pages: tests of resuming. */
  maxPages?: number;
  now?: () => Date;
  onPage?: (info: { tenantId: string; keys: number; differences: number }) => void;
};

export type DriftCheckResult = DriftRunSummary | { id: string; status: "busy" };

const LOCAL_KEY_COLUMNS = {
  id: true,
  status: true,
  prefix: true,
  activatedSeq: true,
  deactivatedSeq: true,
  lastEventId: true,
  revokeRequestedAt: true,
  updatedAt: true,
} as const;

export async function runDriftCheck(options: RunDriftCheckOptions, db: Db = prisma): Promise<DriftCheckResult> {
  const settings = driftSettings(options);
  const runId = options.runId !== undefined ? BigInt(options.runId) : await startDriftRun(options, settings, db);
  const run = await claimDriftRun({ id: runId, now: settings.now(), leaseMs: settings.leaseMs }, db);
  if (!run) return busy(runId);
  const save = leasedProgress(runId, run.leaseUntil!, settings, db);
  let at = await startingPosition(run, db);
  let pagesThisCall = 0;
  while (at !== null) {
    if (options.maxPages !== undefined && pagesThisCall >= options.maxPages) {
      await save({ status: "interrupted", tenantId: at.tenantId });
      return summary(runId, db);
    }
    if (pagesThisCall > 0 && settings.pauseMs > 0) await delay(settings.pauseMs);
    const page = await fetchKeyPage(options.provider, at, settings.pageSize);
    if ("failed" in page) {
      // The client already retried what was worth retrying; the next job tick resumes from here.
      await save({ status: "interrupted", tenantId: at.tenantId, error: page.failed });
      return summary(runId, db);
    }
    pagesThisCall++;
    const { differences, liveSeen } = await differencesOnPage(at, page, db);
    await raiseDriftAlerts(differences, { runId, at: settings.now() }, db);
    const step =
      page.nextCursor === null
        ? await finishDistrict(at.tenantId, page, differences, { runStartedAt: run.startedAt!, settings }, db)
        : nextPageOfDistrict(at.tenantId, page, differences, liveSeen);
    if (!(await save(step.progress))) return busy(runId);
    options.onPage?.({ tenantId: at.tenantId, keys: page.items.length, differences: differences.length });
    at = step.next;
  }
  await save({ status: "done", finishedAt: settings.now(), tenantId: null, cursor: null });
  return summary(runId, db);
}

/** The options with their defaults filled in. */
type DriftSettings = { now: () => Date; pageSize: number; leaseMs: number; pauseMs: number };

function driftSettings(options: RunDriftCheckOptions): DriftSettings {
  return {
    now: options.now ?? (() => new Date()),
    pageSize: options.pageSize ?? env().DRIFT_PAGE_SIZE,
    leaseMs: options.leaseMs ?? 5 * 60_000,
    pauseMs: options.pauseMs ?? env().DRIFT_PAGE_PAUSE_MS,
  };
}

async function startDriftRun(options: RunDriftCheckOptions, settings: DriftSettings, db: Db): Promise<bigint> {
  const run = await db.driftRun.create({
    data: {
      trigger: options.trigger ?? "cli",
      requestedBy: options.requestedBy ?? "drift check",
      requestedAt: settings.now(),
    },
  });
  return run.id;
}

function busy(runId: bigint): DriftCheckResult {
  return { id: runId.toString(), status: "busy" };
}

type ProgressUpdate = Prisma.DriftRunUpdateManyMutationInput;

/**
 * Records progress while the run is still ours (its lease unchanged), renewing the lease; false
 * when another worker took the run over.
 */
function leasedProgress(
  runId: bigint,
  leaseUntil: Date,
  settings: DriftSettings,
  db: Db,
): (data: ProgressUpdate) => Promise<boolean> {
  let lease = leaseUntil;
  return async (data) => {
    const renewed = new Date(settings.now().getTime() + settings.leaseMs);
    const updated = await db.driftRun.updateMany({
      where: { id: runId, status: "running", leaseUntil: lease },
      data: { ...data, leaseUntil: data.status ? null : renewed },
    });
    lease = renewed;
    return updated.count === 1;
  };
}

/** Where the run stands: a district, the provider's cursor in it, and our live keys it has listed there so far. */
type Position = { tenantId: string; cursor: string | null; liveSeen: Set<string> };

/**
 * Where the run recorded it stood. No district yet: a new run starts at the first one; a run that
 * finished its last district but died before saying "done" has nothing left (null).
 */
async function startingPosition(run: DriftRun, db: Db): Promise<Position | null> {
  const tenantId = run.tenantId ?? (run.tenantsDone === 0 ? await nextTenant(null, db) : null);
  if (tenantId === null) return null;
  return {
    tenantId,
    cursor: run.cursor,
    liveSeen: new Set<string>(Array.isArray(run.liveSeen) ? (run.liveSeen as string[]) : []),
  };
}

type KeyPage = Awaited<ReturnType<DriftProvider["listKeys"]>>;

async function fetchKeyPage(
  provider: DriftProvider,
  at: Position,
  limit: number,
): Promise<KeyPage | { failed: string }> {
  try {
    return await provider.listKeys({ tenantId: at.tenantId, cursor: at.cursor, limit });
  } catch (error) {
    return { failed: describeError(error).slice(0, 500) };
  }
}

/**
 * One short read: our rows for exactly the ids on this page (primary-key lookups). On the
 * district's last page, also our live keys the provider never listed.
 */
async function differencesOnPage(
  at: Position,
  page: KeyPage,
  db: Db,
): Promise<{ differences: DriftDifference[]; liveSeen: Set<string> }> {
  const { tenantId } = at;
  const ids = page.items.map((k) => k.id);
  const ours =
    ids.length === 0
      ? []
      : await db.apiKey.findMany({ where: { tenantId, id: { in: ids } }, select: LOCAL_KEY_COLUMNS });
  const compared = comparePage(tenantId, page.items, new Map(ours.map((k) => [k.id, k as LocalKey])));
  const liveSeen = new Set([...at.liveSeen, ...compared.liveSeen]);
  const differences = [...compared.differences];
  if (page.nextCursor === null) {
    // Our live keys are few (one active, and superseded ones a human should revoke anyway).
    const liveHere = await db.apiKey.findMany({
      where: { tenantId, status: { in: [...LIVE_KEY_STATUSES] } },
      select: LOCAL_KEY_COLUMNS,
      take: 10_000,
    });
    differences.push(...unlistedLiveKeys(tenantId, liveHere as LocalKey[], liveSeen));
  }
  return { differences, liveSeen };
}

/** What a compared page adds to the run's row, and where the next page starts (null: no district left). */
type PageStep = { progress: ProgressUpdate; next: Position | null };

function pageCounts(page: KeyPage, differences: DriftDifference[]): ProgressUpdate {
  return {
    pages: { increment: 1 },
    keysCompared: { increment: page.items.length },
    differences: { increment: differences.length },
  };
}

function nextPageOfDistrict(
  tenantId: string,
  page: KeyPage,
  differences: DriftDifference[],
  liveSeen: Set<string>,
): PageStep {
  return {
    progress: { cursor: page.nextCursor, liveSeen: [...liveSeen], ...pageCounts(page, differences) },
    next: { tenantId, cursor: page.nextCursor, liveSeen },
  };
}

/** The district's last page: its cleared drift resolved, and the run moves on to the next district. */
async function finishDistrict(
  tenantId: string,
  page: KeyPage,
  differences: DriftDifference[],
  context: { runStartedAt: Date; settings: DriftSettings },
  db: Db,
): Promise<PageStep> {
  await resolveClearedDrift(tenantId, context.runStartedAt, context.settings.now(), db);
  const next = await nextTenant(tenantId, db);
  return {
    progress: {
      tenantId: next,
      cursor: null,
      liveSeen: [],
      tenantsDone: { increment: 1 },
      ...pageCounts(page, differences),
    },
    next: next === null ? null : { tenantId: next, cursor: null, liveSeen: new Set() },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function summary(id: bigint, db: Db): Promise<DriftRunSummary> {
  return toDriftRunSummary(await db.driftRun.findUniqueOrThrow({ where: { id } }));
}

/** Districts in id order; the canary (test keys only, never shown to districts) is not compared. */
async function nextTenant(after: string | null, db: Db): Promise<string | null> {
  const next = await db.tenant.findFirst({
    where: { AND: [districtWhere(EVERY_DISTRICT), after === null ? {} : { id: { gt: after } }] },
    orderBy: { id: "asc" },
    select: { id: true },
  });
  return next?.id ?? null;
}

/**
 * One alert per difference (deduplicated by kind + subject: a second run refreshes it and raises
 * nothing new). A difference a human marked as explained stays resolved while it is the same
 * difference, however long (its row is kept while it holds: docs/decisions/0036); one whose
 * provider revoke is still waiting in the outbox is not re-opened either. Both are marked seen
 * (last_seen_at), so the district's end can tell the differences that went.
 */
async function raiseDriftAlerts(
  differences: DriftDifference[],
  context: { runId: bigint; at: Date },
  db: Db,
): Promise<void> {
  if (differences.length === 0) return;
  const decisions = await earlierDecisions(differences, db);
  const decided: bigint[] = [];
  for (const difference of differences) {
    const holding = decisionThatHolds(difference, decisions);
    if (holding !== null) {
      decided.push(holding);
      continue;
    }
    await raiseAlert(
      {
        kind: difference.kind,
        subject: driftSubject(difference.tenantId, difference.keyId),
        tenantId: difference.tenantId,
        now: context.at,
        // A different difference, or one the person's action did not end: re-opened for them.
        changed: true,
        details: driftAlertDetails(difference, context.runId),
      },
      db,
    );
  }
  if (decided.length > 0)
    await db.alert.updateMany({ where: { id: { in: decided } }, data: { lastSeenAt: context.at } });
}

type EarlierDecisions = {
  /** The existing alert of each difference, by `${kind} ${subject}`. */
  bySubject: Map<string, { id: bigint; state: string; resolution: string | null; count: number; details: unknown }>;
  /** The idempotency keys of the drift revokes still waiting in the outbox. */
  pendingRevokes: Set<string>;
};

async function earlierDecisions(differences: DriftDifference[], db: Db): Promise<EarlierDecisions> {
  const existing = await db.alert.findMany({
    where: { OR: differences.map((d) => ({ kind: d.kind, subject: driftSubject(d.tenantId, d.keyId) })) },
    select: { id: true, kind: true, subject: true, state: true, resolution: true, count: true, details: true },
  });
  const pending = await db.outboxMessage.findMany({
    where: {
      status: "pending",
      idempotencyKey: {
        in: existing
          .filter((a) => a.resolution === "revoke_requested")
          .map((a) => driftRevokeIdempotencyKey(a.id, a.count)),
      },
    },
    select: { idempotencyKey: true },
  });
  return {
    bySubject: new Map(existing.map((a) => [`${a.kind} ${a.subject}`, a])),
    pendingRevokes: new Set(pending.map((m) => m.idempotencyKey)),
  };
}

/** The alert whose resolution still stands for this difference, or null. */
function decisionThatHolds(difference: DriftDifference, decisions: EarlierDecisions): bigint | null {
  const before = decisions.bySubject.get(`${difference.kind} ${driftSubject(difference.tenantId, difference.keyId)}`);
  if (before?.state !== "resolved") return null;
  const sameDifference = (before.details as { fingerprint?: string } | null)?.fingerprint === fingerprintOf(difference);
  const holds =
    (before.resolution === "explained" && sameDifference) ||
    (before.resolution === "revoke_requested" &&
      decisions.pendingRevokes.has(driftRevokeIdempotencyKey(before.id, before.count)));
  return holds ? before.id : null;
}

/** What each side said at the time, for the person who reads the alert. */
function driftAlertDetails(difference: DriftDifference, runId: bigint): Record<string, unknown> {
  return {
    summary: describeDifference(difference),
    fingerprint: fingerprintOf(difference),
    tenant_id: difference.tenantId,
    key_id: difference.keyId,
    run_id: runId.toString(),
    provider: difference.provider
      ? {
          status: difference.provider.status,
          prefix: difference.provider.prefix,
          scopes: difference.provider.scopes,
          created_at: difference.provider.createdAt.toISOString(),
        }
      : null,
    ours: difference.ours
      ? {
          status: difference.ours.status,
          prefix: difference.ours.prefix,
          activated_seq: difference.ours.activatedSeq === null ? null : Number(difference.ours.activatedSeq),
          deactivated_seq: difference.ours.deactivatedSeq === null ? null : Number(difference.ours.deactivatedSeq),
          last_event_id: difference.ours.lastEventId,
          revoke_requested_at: difference.ours.revokeRequestedAt?.toISOString() ?? null,
          updated_at: difference.ours.updatedAt.toISOString(),
        }
      : null,
  };
}

/**
 * The district's drift alerts this run did not see again: both sides agree now. Open ones are
 * resolved; a person's decision on one is spent (the purge may take it; a new difference re-opens).
 */
async function resolveClearedDrift(tenantId: string, runStartedAt: Date, at: Date, db: Db): Promise<void> {
  const gone = { kind: { in: [...DRIFT_KINDS] }, tenantId, lastSeenAt: { lt: runStartedAt } };
  await db.alert.updateMany({
    where: { ...gone, state: "resolved", conditionClearedAt: null },
    data: { conditionClearedAt: at },
  });
  await db.alert.updateMany({
    where: { ...gone, state: { not: "resolved" } },
    data: {
      state: "resolved",
      resolvedAt: at,
      resolvedBy: DRIFT_ACTOR,
      resolution: "condition_cleared",
      conditionClearedAt: at,
    },
  });
}
