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
import { prisma, type Db } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { env } from "../env";
import { describeError } from "../log";
import { DRIFT_ACTOR, DRIFT_KINDS } from "../alerts/alert-kinds";
import { raiseAlert } from "../alerts/upsert-alert";
import type { ProviderClient } from "../provider/client";
import { CANARY_TENANT_ID } from "../readiness/canary";
import {
  comparePage,
  describeDifference,
  fingerprintOf,
  unlistedLiveKeys,
  type DriftDifference,
  type LocalKey,
} from "./compare-keys";
import { claimDriftRun, toDriftRunSummary, type DriftRunSummary, type DriftTrigger } from "./drift-runs";
import { driftRevokeIdempotencyKey, driftSubject } from "./drift-subjects";
import { LIVE_KEY_STATUSES } from "../vocabulary";

export type DriftProvider = Pick<ProviderClient, "listKeys">;

export type RunDriftCheckOptions = {
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
  const now = options.now ?? (() => new Date());
  const pageSize = options.pageSize ?? env().DRIFT_PAGE_SIZE;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const pauseMs = options.pauseMs ?? env().DRIFT_PAGE_PAUSE_MS;
  const runId =
    options.runId !== undefined
      ? BigInt(options.runId)
      : (
          await db.driftRun.create({
            data: {
              trigger: options.trigger ?? "cli",
              requestedBy: options.requestedBy ?? "drift check",
              requestedAt: now(),
            },
          })
        ).id;

  const run = await claimDriftRun({ id: runId, now: now(), leaseMs }, db);
  if (!run) return { id: runId.toString(), status: "busy" };
  const startedAt = run.startedAt!;
  // No district yet: a new run starts at the first one; a run that finished its last district
  // but died before saying "done" has nothing left.
  let tenantId = run.tenantId ?? (run.tenantsDone === 0 ? await nextTenant(null, db) : null);
  let lease = run.leaseUntil!;
  /** Records progress while the run is still ours (its lease unchanged); false when another worker took it over. */
  const progress = async (data: Prisma.DriftRunUpdateManyMutationInput): Promise<boolean> => {
    const renewed = new Date(now().getTime() + leaseMs);
    const updated = await db.driftRun.updateMany({
      where: { id: runId, status: "running", leaseUntil: lease },
      data: { ...data, leaseUntil: data.status ? null : renewed },
    });
    lease = renewed;
    return updated.count === 1;
  };
  let cursor = run.cursor;
  let liveSeen = new Set<string>(Array.isArray(run.liveSeen) ? (run.liveSeen as string[]) : []);
  let pagesThisCall = 0;

  while (tenantId !== null) {
    if (options.maxPages !== undefined && pagesThisCall >= options.maxPages) {
      await progress({ status: "interrupted", tenantId });
      return summary(runId, db);
    }
    if (pagesThisCall > 0 && pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    let page: Awaited<ReturnType<DriftProvider["listKeys"]>>;
    try {
      page = await options.provider.listKeys({ tenantId, cursor, limit: pageSize });
    } catch (error) {
      // The client already retried what was worth retrying; the next job tick resumes from here.
      await progress({ status: "interrupted", tenantId, error: describeError(error).slice(0, 500) });
      return summary(runId, db);
    }
    pagesThisCall++;

    // One short read: our rows for exactly the ids on this page (primary-key lookups).
    const ids = page.items.map((k) => k.id);
    const ours =
      ids.length === 0
        ? []
        : await db.apiKey.findMany({ where: { tenantId, id: { in: ids } }, select: LOCAL_KEY_COLUMNS });
    const compared = comparePage(tenantId, page.items, new Map(ours.map((k) => [k.id, k as LocalKey])));
    for (const id of compared.liveSeen) liveSeen.add(id);
    const differences = [...compared.differences];

    const districtDone = page.nextCursor === null;
    if (districtDone) {
      // Our live keys are few (one active, and superseded ones a human should revoke anyway).
      const liveHere = await db.apiKey.findMany({
        where: { tenantId, status: { in: [...LIVE_KEY_STATUSES] } },
        select: LOCAL_KEY_COLUMNS,
        take: 10_000,
      });
      differences.push(...unlistedLiveKeys(tenantId, liveHere as LocalKey[], liveSeen));
    }
    await raiseDriftAlerts(differences, { runId, at: now() }, db);

    if (districtDone) {
      await resolveClearedDrift(tenantId, startedAt, now(), db);
      const next = await nextTenant(tenantId, db);
      const ours = await progress({
        tenantId: next,
        cursor: null,
        liveSeen: [],
        tenantsDone: { increment: 1 },
        pages: { increment: 1 },
        keysCompared: { increment: page.items.length },
        differences: { increment: differences.length },
      });
      if (!ours) return { id: runId.toString(), status: "busy" };
      options.onPage?.({ tenantId, keys: page.items.length, differences: differences.length });
      tenantId = next;
      cursor = null;
      liveSeen = new Set();
    } else {
      const ours = await progress({
        cursor: page.nextCursor,
        liveSeen: [...liveSeen],
        pages: { increment: 1 },
        keysCompared: { increment: page.items.length },
        differences: { increment: differences.length },
      });
      if (!ours) return { id: runId.toString(), status: "busy" };
      options.onPage?.({ tenantId, keys: page.items.length, differences: differences.length });
      cursor = page.nextCursor;
    }
  }

  await progress({ status: "done", finishedAt: now(), tenantId: null, cursor: null });
  return summary(runId, db);
}

async function summary(id: bigint, db: Db): Promise<DriftRunSummary> {
  return toDriftRunSummary(await db.driftRun.findUniqueOrThrow({ where: { id } }));
}

/** Districts in id order; the canary (test keys only, never shown to districts) is not compared. */
async function nextTenant(after: string | null, db: Db): Promise<string | null> {
  const next = await db.tenant.findFirst({
    where: { id: after === null ? { not: CANARY_TENANT_ID } : { gt: after, not: CANARY_TENANT_ID } },
    orderBy: { id: "asc" },
    select: { id: true },
  });
  return next?.id ?? null;
}

/**
 * One alert per difference (deduplicated by kind + subject: a second run refreshes it and raises
 * nothing new). A difference a human marked as explained stays resolved while it is the same
 * difference; one whose provider revoke is still waiting in the outbox is not re-opened either.
 */
async function raiseDriftAlerts(
  differences: DriftDifference[],
  context: { runId: bigint; at: Date },
  db: Db,
): Promise<void> {
  if (differences.length === 0) return;
  const existing = await db.alert.findMany({
    where: { OR: differences.map((d) => ({ kind: d.kind, subject: driftSubject(d.tenantId, d.keyId) })) },
    select: { id: true, kind: true, subject: true, state: true, resolution: true, count: true, details: true },
  });
  const bySubject = new Map(existing.map((a) => [`${a.kind} ${a.subject}`, a]));
  const pendingRevokes = new Set(
    (
      await db.outboxMessage.findMany({
        where: {
          status: "pending",
          idempotencyKey: {
            in: existing
              .filter((a) => a.resolution === "revoke_requested")
              .map((a) => driftRevokeIdempotencyKey(a.id, a.count)),
          },
        },
        select: { idempotencyKey: true },
      })
    ).map((m) => m.idempotencyKey),
  );
  for (const difference of differences) {
    const subject = driftSubject(difference.tenantId, difference.keyId);
    const fingerprint = fingerprintOf(difference);
    const before = bySubject.get(`${difference.kind} ${subject}`);
    if (before?.state === "resolved") {
      const sameDifference = (before.details as { fingerprint?: string } | null)?.fingerprint === fingerprint;
      if (before.resolution === "explained" && sameDifference) continue;
      if (
        before.resolution === "revoke_requested" &&
        pendingRevokes.has(driftRevokeIdempotencyKey(before.id, before.count))
      )
        continue;
    }
    await raiseAlert(
      {
        kind: difference.kind,
        subject,
        tenantId: difference.tenantId,
        now: context.at,
        details: {
          summary: describeDifference(difference),
          fingerprint,
          tenant_id: difference.tenantId,
          key_id: difference.keyId,
          run_id: context.runId.toString(),
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
                deactivated_seq:
                  difference.ours.deactivatedSeq === null ? null : Number(difference.ours.deactivatedSeq),
                last_event_id: difference.ours.lastEventId,
                revoke_requested_at: difference.ours.revokeRequestedAt?.toISOString() ?? null,
                updated_at: difference.ours.updatedAt.toISOString(),
              }
            : null,
        },
      },
      db,
    );
  }
}

/** The district's drift alerts this run did not raise again: both sides agree now. */
async function resolveClearedDrift(tenantId: string, runStartedAt: Date, at: Date, db: Db): Promise<void> {
  await db.alert.updateMany({
    where: { kind: { in: [...DRIFT_KINDS] }, tenantId, state: { not: "resolved" }, lastSeenAt: { lt: runStartedAt } },
    data: { state: "resolved", resolvedAt: at, resolvedBy: DRIFT_ACTOR, resolution: "condition_cleared" },
  });
}
