import "server-only";
// Asks the provider to send one delivery again. The redelivered event arrives at our webhook like
// any other and goes through the same ingest path: an applied event comes back as "duplicate".
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { toAppError } from "../provider/errors";
import { getRegisteredHookId } from "../provider/webhook-registration";
import { providerForDashboard, type DeliveryProvider } from "../provider/provider-for-dashboard";

export async function requestRedelivery(
  options: { actor: Actor; deliveryId: string; eventId: string; tenantId?: string | null; provider?: DeliveryProvider },
  db: DbOrTx = prisma,
): Promise<{ accepted: true }> {
  authorize(options.actor, "delivery.replay");
  const hookId = await getRegisteredHookId(db);
  if (!hookId) throw new AppError("unavailable", "No webhook is registered with the provider yet.");
  const audit = (outcome: string, details: Record<string, unknown> = {}) =>
    recordAudit(
      {
        actor: auditActor(options.actor),
        action: "delivery.replay",
        tenantId: options.tenantId ?? null,
        target: options.eventId,
        outcome,
        details: { mode: "provider", deliveryId: options.deliveryId, ...details },
      },
      db,
    );
  try {
    await (options.provider ?? providerForDashboard()).redeliver({ hookId, deliveryId: options.deliveryId });
  } catch (error) {
    const appError = toAppError(error);
    await audit("failed", { error: appError.publicMessage });
    throw appError;
  }
  await audit("requested");
  return { accepted: true };
}
