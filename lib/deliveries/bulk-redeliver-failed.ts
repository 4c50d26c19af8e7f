import "server-only";
// Bulk replay of the provider's failed deliveries in a time window. A dry run only counts, so the
// person sees how many events will be re-sent before asking for it.
import { prisma, type DbOrTx } from "../db";
import { AppError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import { auditActor, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import { toAppError } from "../provider/errors";
import { getRegisteredHookId } from "../provider/webhook-registration";
import { providerForDashboard, type DeliveryProvider } from "./provider-for-dashboard";

const MAX_WINDOW_MS = 31 * 86_400_000;

export async function bulkRedeliverFailed(
  options: { actor: Actor; since: Date; until: Date; dryRun: boolean; provider?: DeliveryProvider },
  db: DbOrTx = prisma,
): Promise<{ count: number; dryRun: boolean }> {
  authorize(options.actor, "delivery.replay");
  if (!(options.since < options.until)) throw new AppError("bad_request", "From must be before To.");
  if (options.until.getTime() - options.since.getTime() > MAX_WINDOW_MS)
    throw new AppError("bad_request", "Choose a window of at most 31 days.");
  const hookId = await getRegisteredHookId(db);
  if (!hookId) throw new AppError("unavailable", "No webhook is registered with the provider yet.");
  const window = { since: options.since.toISOString(), until: options.until.toISOString() };
  try {
    const { count } = await (options.provider ?? providerForDashboard()).redeliverFailed({
      hookId,
      since: options.since,
      until: options.until,
      dryRun: options.dryRun,
    });
    if (!options.dryRun) {
      await recordAudit(
        {
          actor: auditActor(options.actor),
          action: "delivery.bulk_replay",
          outcome: "requested",
          details: { ...window, count },
        },
        db,
      );
    }
    return { count, dryRun: options.dryRun };
  } catch (error) {
    const appError = toAppError(error);
    if (!options.dryRun) {
      await recordAudit(
        {
          actor: auditActor(options.actor),
          action: "delivery.bulk_replay",
          outcome: "failed",
          details: { ...window, error: appError.publicMessage },
        },
        db,
      );
    }
    throw appError;
  }
}
