import "server-only";
// A gap the provider's retries can no longer fill needs a human: once it has been open longer than
// the provider's retry horizon, nothing will redeliver the missing events by itself (ask the
// provider, or replay). The worker runs this every minute; a closed gap resolves its alert.
import { raiseAlert, resolveAlerts } from "../alerts/upsert-alert";
import { prisma, type DbOrTx } from "../db";
import { CANARY_TENANT_ID } from "../readiness/canary";
import { getRetentionSettings } from "../retention/settings";

export const GAP_ALERT_KIND = "sequence_gap";

export const gapAlertSubject = (gapId: bigint | string) => `sequence_gaps/${gapId}`;

export async function raiseGapAlerts(
  options: { now?: Date; retryHorizonHours?: number } = {},
  db: DbOrTx = prisma,
): Promise<{ raised: number; resolved: number }> {
  const now = options.now ?? new Date();
  const horizonHours = options.retryHorizonHours ?? (await getRetentionSettings(db)).retryHorizonHours;
  const cutoff = new Date(now.getTime() - horizonHours * 3_600_000);

  const overdue = await db.sequenceGap.findMany({
    where: { closedAt: null, firstNoticedAt: { lt: cutoff }, tenantId: { not: CANARY_TENANT_ID } },
    orderBy: { firstNoticedAt: "asc" },
    take: 1000,
  });
  for (const gap of overdue) {
    await raiseAlert(
      {
        kind: GAP_ALERT_KIND,
        subject: gapAlertSubject(gap.id),
        tenantId: gap.tenantId,
        now,
        details: {
          tenant_id: gap.tenantId,
          from_sequence: Number(gap.fromSeq),
          to_sequence: Number(gap.toSeq),
          first_noticed_at: gap.firstNoticedAt.toISOString(),
          fix: "the provider will not redeliver these events by itself: ask the provider for them or replay them",
        },
      },
      db,
    );
  }

  const openAlerts = await db.alert.findMany({
    where: { kind: GAP_ALERT_KIND, state: { not: "resolved" } },
    select: { subject: true },
    take: 5000,
  });
  const ids = openAlerts
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
  return { raised: overdue.length, resolved };
}
