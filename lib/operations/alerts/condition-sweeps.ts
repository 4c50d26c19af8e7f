import "server-only";
// The condition-based alerts: each function looks at what holds NOW and syncs its kind's alerts
// with it (sync-condition-alerts.ts). Each reads through an index or a small table; the worker
// runs them every ALERT_SWEEP_INTERVAL_MS (sweep-alerts.ts).
import type { DbOrTx } from "../../core/db/client";
import { env } from "../../core/config/env";
import { getProviderLink } from "../provider/provider-link";
import { EVERY_DISTRICT, tenantWhere } from "../../core/tenancy/district-scope";
import { countRollup } from "../rollups/rollup-counts";
import { CONDITION_ITEMS_CAP, syncConditionAlerts } from "./sync-condition-alerts";

type Sweep = { raised: number; resolved: number };

/** A superseded key may still work at the provider: a human should revoke it (invariant 4). */
export async function sweepSupersededKeys(now: Date, db: DbOrTx): Promise<Sweep> {
  const keys = await db.apiKey.findMany({
    where: { status: "superseded", ...tenantWhere(EVERY_DISTRICT) },
    select: { id: true, tenantId: true, prefix: true, supersededAt: true, supersededByKeyId: true },
    orderBy: { id: "asc" },
    take: CONDITION_ITEMS_CAP,
  });
  return syncConditionAlerts(
    {
      kind: "superseded_key",
      now,
      complete: keys.length < CONDITION_ITEMS_CAP,
      items: keys.map((key) => ({
        subject: `api_keys/${key.id}`,
        tenantId: key.tenantId,
        details: {
          tenant_id: key.tenantId,
          key_id: key.id,
          prefix: key.prefix,
          superseded_at: key.supersededAt?.toISOString() ?? null,
          superseded_by: key.supersededByKeyId,
          fix: "a newer key replaced it without the provider deactivating it: revoke it from its district page",
        },
      })),
    },
    db,
  );
}

/** The latest purge run failed (a later successful run clears it). */
export async function sweepPurgeFailures(now: Date, db: DbOrTx): Promise<Sweep> {
  const last = await db.purgeRun.findFirst({
    where: { status: { in: ["ran", "failed"] } },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
  });
  const failing = last?.status === "failed" ? last : null;
  return syncConditionAlerts(
    {
      kind: "purge_failed",
      now,
      items: failing
        ? [
            {
              subject: "retention/purge",
              tenantId: null,
              details: {
                run_id: failing.id.toString(),
                started_at: failing.startedAt.toISOString(),
                trigger: failing.trigger,
                error: failing.error,
                fix: "see Retention for the run; `npm run purge` runs one by hand",
              },
            },
          ]
        : [],
    },
    db,
  );
}

/**
 * The provider's API has not answered (no response, or 5xx) for longer than
 * ALERT_PROVIDER_UNREACHABLE_MINUTES, with no answer in between: read from the outbox's attempt
 * log (every key call we send) and the provider link (the worker's webhook registration, which
 * keeps calling while the provider is down even when no key change waits).
 */
export async function sweepProviderUnreachable(
  now: Date,
  db: DbOrTx,
  minutes = env().ALERT_PROVIDER_UNREACHABLE_MINUTES,
): Promise<Sweep> {
  const link = await getProviderLink(db);
  const [outbox] = await db.$queryRaw<
    {
      last_answer: Date | null;
      first_failed: Date | null;
      last_failed: Date | null;
      failures: number;
      last_error: string | null;
    }[]
  >`
    WITH provider_attempts AS (
      -- Calls to the provider only (the outbox also sends alert notifications to other hosts).
      SELECT a.at, a.status, a.error FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id
      WHERE o.kind LIKE 'key.%'
    ), last_answer AS (
      SELECT greatest(max(at), ${link.lastAnswerAt}::timestamptz) AS at
      FROM provider_attempts WHERE status IS NOT NULL AND status < 500
    )
    SELECT last_answer.at AS last_answer, min(a.at) AS first_failed, max(a.at) AS last_failed,
           count(a.at)::int AS failures, (array_agg(a.error ORDER BY a.at DESC))[1] AS last_error
    FROM last_answer LEFT JOIN provider_attempts a ON (last_answer.at IS NULL OR a.at > last_answer.at)
      AND (a.status >= 500 OR (a.status IS NULL AND a.error IS NOT NULL
           AND a.error <> 'in flight' AND a.error NOT LIKE 'abandoned:%' AND a.error NOT LIKE 'not sent:%'))
    GROUP BY last_answer.at`;
  const lastAnswer = outbox?.last_answer ?? null;
  // The link's failures since the last answer from either source (it keeps only its first and last).
  const linkFailing =
    link.failingSince && link.lastFailureAt && (!lastAnswer || link.lastFailureAt > lastAnswer)
      ? { from: lastAnswer && lastAnswer > link.failingSince ? lastAnswer : link.failingSince, to: link.lastFailureAt }
      : null;
  const firsts = [outbox?.first_failed ?? null, linkFailing?.from ?? null].filter((d): d is Date => d !== null);
  const failingSince = firsts.length > 0 ? new Date(Math.min(...firsts.map((d) => d.getTime()))) : null;
  const outboxLast = outbox?.last_failed ?? null;
  const linkIsLater = linkFailing !== null && (!outboxLast || linkFailing.to > outboxLast);
  const unreachable = failingSince !== null && now.getTime() - failingSince.getTime() > minutes * 60_000;
  return syncConditionAlerts(
    {
      kind: "provider_unreachable",
      now,
      items: unreachable
        ? [
            {
              subject: "provider/api",
              tenantId: null,
              details: {
                failing_since: failingSince.toISOString(),
                last_failure: (linkIsLater ? linkFailing.to : outboxLast)?.toISOString() ?? null,
                failed_calls: (outbox?.failures ?? 0) + (linkFailing ? link.failedCalls : 0),
                last_error: linkIsLater ? link.lastError : (outbox?.last_error ?? null),
                threshold_minutes: minutes,
                fix: "check PROVIDER_URL and the provider's status; staged calls and the webhook registration are retried and sent once it answers",
              },
            },
          ]
        : [],
    },
    db,
  );
}

/** The share of our webhook answers that were not 2xx over the window (the rollups: cheap at any size). */
export async function sweepDeliveryFailureRate(
  now: Date,
  db: DbOrTx,
  settings = {
    percent: env().ALERT_DELIVERY_FAILURE_PERCENT,
    windowMinutes: env().ALERT_DELIVERY_FAILURE_WINDOW_MINUTES,
    minDeliveries: env().ALERT_DELIVERY_FAILURE_MIN_DELIVERIES,
  },
): Promise<Sweep> {
  const counts = await countRollup(
    { source: "receipts", from: new Date(now.getTime() - settings.windowMinutes * 60_000), to: now },
    db,
  );
  const deliveries = counts.reduce((sum, c) => sum + c.rows, 0);
  const ok = counts.reduce((sum, c) => sum + c.okRows, 0);
  const failedShare = deliveries === 0 ? 0 : ((deliveries - ok) / deliveries) * 100;
  const high = deliveries >= settings.minDeliveries && failedShare > settings.percent;
  return syncConditionAlerts(
    {
      kind: "delivery_failure_rate",
      now,
      items: high
        ? [
            {
              subject: "deliveries/failure-rate",
              tenantId: null,
              details: {
                window_minutes: settings.windowMinutes,
                deliveries,
                failed: deliveries - ok,
                failed_percent: Math.round(failedShare * 10) / 10,
                threshold_percent: settings.percent,
                fix: "see Deliveries for the failing answers (signature, timestamp, 503s) and the Settings secret inventory",
              },
            },
          ]
        : [],
    },
    db,
  );
}
