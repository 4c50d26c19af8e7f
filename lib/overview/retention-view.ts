import "server-only";
// The Retention page's data, with the role check in front of the retention services
// (lib/retention), which are also used by machines (worker, cron) and so take no actor. Its one
// write is lib/retention/save-retention-settings.ts.
import { prisma, type DbOrTx } from "../db";
import { type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { getRetentionSettings, getRetentionStats, listPurgeRuns } from "../retention";
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
