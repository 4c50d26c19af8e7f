import "server-only";
// The Retention page's one write: a platform admin's new settings, with the role check in front
// of the settings service (settings.ts), which takes no actor (tests and tooling call it too).
import { prisma, type DbOrTx } from "../db";
import { auditActor, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { updateRetentionSettings, type RetentionSettings } from "./settings";

export async function saveRetentionSettings(
  options: { actor: Actor; retentionDays: number; retryHorizonHours: number; payloadRetentionDays?: number },
  db: DbOrTx = prisma,
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
