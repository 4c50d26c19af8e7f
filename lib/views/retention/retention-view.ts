import "server-only";
// The Retention page's data, with the role check in front of the retention services
// (lib/operations/retention), which are also used by machines (worker, cron) and so take no actor. Its one
// write is updateRetentionSettings (lib/operations/retention/settings.ts).
import { prisma, type DbOrTx } from "../../core/db/client";
import { type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { getRetentionSettings } from "../../operations/retention/settings";
import { listPurgeRuns } from "../../operations/retention/purge-runs";
import { getRetentionStats } from "./retention-stats";
import { getBoundedTables } from "../../operations/retention/bounded-tables";

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
