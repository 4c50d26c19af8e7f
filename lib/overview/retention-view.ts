import "server-only";
// The Retention page's data and its one action, with the role checks in front of the retention
// services (lib/retention), which are also used by machines (worker, cron) and so take no actor.
import { prisma, type Db, type DbOrTx } from "../db";
import { auditActor, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import {
  getRetentionSettings,
  getRetentionStats,
  listPurgeRuns,
  updateRetentionSettings,
  type RetentionSettings,
} from "../retention";
import { getBoundedTables } from "../retention/bounded-tables";

export async function getRetentionView(options: { actor: Actor }, db: DbOrTx = prisma) {
  authorize(options.actor, "retention.view");
  const [settings, stats, runs, tables] = await Promise.all([
    getRetentionSettings(db),
    getRetentionStats(db),
    listPurgeRuns({ limit: 20 }, db),
    getBoundedTables(db),
  ]);
  return { settings, stats, runs, tables };
}

export async function saveRetentionSettings(
  options: { actor: Actor; retentionDays: number; retryHorizonHours: number; payloadRetentionDays?: number },
  db: Db = prisma,
): Promise<RetentionSettings> {
  authorize(options.actor, "retention.edit");
  return updateRetentionSettings(
    {
      retentionDays: options.retentionDays,
      retryHorizonHours: options.retryHorizonHours,
      payloadRetentionDays: options.payloadRetentionDays,
      actor: auditActor(options.actor),
    },
    db,
  );
}
