import "server-only";
// The alert sweep: raises and resolves every condition-based kind (and folds new quarantined
// events into their alerts). Drift alerts are the drift check's (lib/drift), but one our own side
// has settled since is resolved here (settled-drift.ts); sequence gaps have
// their own job (lib/operations/alerts/raise-gap-alerts.ts), run here too so one sweep covers the center.
// The queue runs it every ALERT_SWEEP_INTERVAL_MS (task alerts.sweep, lib/operations/worker/background-jobs.ts).
import { prisma, type Db } from "../../core/db/client";
import { resolveSettledDrift } from "../drift/settled-drift";
import { raiseGapAlerts } from "../alerts/raise-gap-alerts";
import {
  sweepDeliveryFailureRate,
  sweepProviderUnreachable,
  sweepPurgeFailures,
  sweepSupersededKeys,
} from "../alerts/condition-sweeps";
import { sweepQuarantine } from "../alerts/sweep-quarantine";
import { sweepFailedOutbox } from "../alerts/failed-outbox";

export type SweepResult = Record<string, { raised: number; resolved: number; waiting?: boolean }>;

export async function sweepAlerts(options: { now?: Date } = {}, db: Db = prisma): Promise<SweepResult> {
  const now = options.now ?? new Date();
  return {
    quarantine: await sweepQuarantine({ now }, db),
    superseded_key: await sweepSupersededKeys(now, db),
    sequence_gap: await raiseGapAlerts({ now }, db),
    outbox_failed: await sweepFailedOutbox(now, db),
    purge_failed: await sweepPurgeFailures(now, db),
    provider_unreachable: await sweepProviderUnreachable(now, db),
    delivery_failure_rate: await sweepDeliveryFailureRate(now, db),
    settled_drift: await resolveSettledDrift(now, db),
  };
}
