import "server-only";
// A gap the provider's retries can no longer fill needs a human: once it has been open longer than
// the provider's retry horizon, nothing will redeliver the missing events by itself (ask the
// provider, or replay). The worker runs this every minute; a closed gap resolves its alert. A gap
// a person resolved (explained, asked the provider) stays resolved while it stays open
// (sync-condition-alerts.ts): the minute's run must not re-open it.
import { resolveAlerts, WATCHED } from "./upsert-alert";
import { prisma, type DbOrTx } from "../../core/db/client";
import { EVERY_DISTRICT, tenantWhere } from "../../core/tenancy/district-scope";
import { getRetentionSettings } from "../retention/settings";
import { syncConditionAlerts } from "./sync-condition-alerts";

export const GAP_ALERT_KIND = "sequence_gap";

const gapAlertSubject = (gapId: bigint | string) => `sequence_gaps/${gapId}`;

export async function raiseGapAlerts(
  options: { now?: Date; retryHorizonHours?: number } = {},
  db: DbOrTx = prisma,
): Promise<{ raised: number; resolved: number }> {
  const now = options.now ?? new Date();
  const horizonHours = options.retryHorizonHours ?? (await getRetentionSettings(db)).retryHorizonHours;
  const cutoff = new Date(now.getTime() - horizonHours * 3_600_000);

  const overdue = await db.sequenceGap.findMany({
    where: { closedAt: null, firstNoticedAt: { lt: cutoff }, ...tenantWhere(EVERY_DISTRICT) },
    orderBy: { firstNoticedAt: "asc" },
    take: 1000,
  });
  // Raise only: an alert is resolved by its gap closing (below), not by falling outside this page.
  const { raised } = await syncConditionAlerts(
    {
      kind: GAP_ALERT_KIND,
      now,
      complete: false,
      items: overdue.map((gap) => ({
        subject: gapAlertSubject(gap.id),
        tenantId: gap.tenantId,
        details: {
          tenant_id: gap.tenantId,
          from_sequence: Number(gap.fromSeq),
          to_sequence: Number(gap.toSeq),
          first_noticed_at: gap.firstNoticedAt.toISOString(),
          fix: "the provider will not redeliver these events by itself: ask the provider for them or replay them",
        },
      })),
    },
    db,
  );

  const watched = await db.alert.findMany({
    where: { kind: GAP_ALERT_KIND, ...WATCHED },
    select: { subject: true },
    take: 5000,
  });
  const ids = watched
    .map((a) => a.subject.replace("sequence_gaps/", ""))
    .filter((id) => /^\d+$/.test(id))
    .map((id) => BigInt(id));
  const stillOpen =
    ids.length === 0
      ? []
      : await db.sequenceGap.findMany({ where: { id: { in: ids }, closedAt: null }, select: { id: true } });
  const open = new Set(stillOpen.map((g) => g.id.toString()));
  const closed = ids.filter((id) => !open.has(id.toString())).map(gapAlertSubject);
  const resolved = await resolveAlerts({ kind: GAP_ALERT_KIND, subjects: closed, now }, db);
  return { raised, resolved };
}
