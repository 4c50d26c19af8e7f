import "server-only";
// Drift alerts our own side has settled since the check raised them, resolved at the alert sweep
// rather than at the next drift check (hours away). A difference is always about a live key on
// one side (compare-keys.ts), so our side alone can end it:
//   drift_local_active:    the key is no longer live here — both sides now hold it dead;
//   drift_provider_active: the key is live here now — both sides now hold it live.
// Whatever the provider did meanwhile is the next check's to find.
import { DRIFT_KINDS } from "../alerts/alert-kinds";
import type { DbOrTx } from "../../core/db/client";
import { CONDITION_ITEMS_CAP } from "../alerts/sync-condition-alerts";
import { resolveAlerts } from "../alerts/upsert-alert";
import { isLiveKeyStatus } from "../../core/vocabulary";
import { driftSubject } from "../alerts/drift-subjects";

export async function resolveSettledDrift(now: Date, db: DbOrTx): Promise<{ raised: 0; resolved: number }> {
  const open = await db.alert.findMany({
    where: { kind: { in: [...DRIFT_KINDS] }, state: { not: "resolved" } },
    select: { kind: true, subject: true, tenantId: true, details: true },
    orderBy: { id: "asc" },
    take: CONDITION_ITEMS_CAP,
  });
  const alerts = open.flatMap((alert) => {
    const keyId = (alert.details as { key_id?: unknown } | null)?.key_id;
    return alert.tenantId && typeof keyId === "string" ? [{ ...alert, tenantId: alert.tenantId, keyId }] : [];
  });
  if (alerts.length === 0) return { raised: 0, resolved: 0 };
  const keys = await db.apiKey.findMany({
    where: { OR: alerts.map((a) => ({ tenantId: a.tenantId, id: a.keyId })) },
    select: { id: true, tenantId: true, status: true },
  });
  const liveHere = new Set(keys.filter((k) => isLiveKeyStatus(k.status)).map((k) => driftSubject(k.tenantId, k.id)));
  let resolved = 0;
  for (const kind of DRIFT_KINDS) {
    const settled = alerts
      .filter((a) => a.kind === kind && liveHere.has(a.subject) === (kind === "drift_provider_active"))
      .map((a) => a.subject);
    resolved += await resolveAlerts({ kind, subjects: settled, now }, db);
  }
  return { raised: 0, resolved };
}
