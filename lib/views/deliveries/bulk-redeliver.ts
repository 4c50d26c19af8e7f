import "server-only";
// Bulk redelivery from the Deliveries page: exactly the rows its list shows with its filters
// (window, district, event, status) that failed at the provider, each asked for again by its
// latest attempt. A dry run names them first. The list is read again with the same filters, so
// what is sent is what the list says, with the provider's own meaning of "failed" never involved.
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { toAppError } from "../../operations/provider/errors";
import { getRegisteredHookId } from "../../operations/provider/webhook-registration";
import { deliveryFilterParams, type DeliveryFilters } from "./delivery-filters";
import { listDeliveries, type RedeliverableRow } from "./list-deliveries";
import { providerForDashboard, type DeliveryProvider } from "../../operations/provider/provider-for-dashboard";

const MAX_WINDOW_MS = 31 * 86_400_000;

type BulkRedeliverResult = {
  dryRun: boolean;
  /** The rows acted on (or, in a dry run, that would be). */
  rows: RedeliverableRow[];
  /** Rows the provider refused or did not answer for, with its reason. */
  refused: { eventId: string; error: string }[];
};

export async function bulkRedeliver(
  options: { actor: Actor; filters: DeliveryFilters; dryRun: boolean; provider?: DeliveryProvider },
  db: DbOrTx = prisma,
): Promise<BulkRedeliverResult> {
  authorize(options.actor, "delivery.replay");
  const { filters } = options;
  if (!(filters.since < filters.until)) throw new AppError("bad_request", "From must be before To.");
  if (filters.until.getTime() - filters.since.getTime() > MAX_WINDOW_MS)
    throw new AppError("bad_request", "Choose a window of at most 31 days.");
  const view = await listDeliveries({ actor: options.actor, ...filters, provider: options.provider }, db);
  if (view.provider.kind === "not_registered")
    throw new AppError("unavailable", "No webhook is registered with the provider yet.");
  if (view.provider.kind === "unreachable")
    throw new AppError("unavailable", `The provider is unreachable (${view.provider.message}); nothing was sent.`);
  const rows = view.redeliverable;
  if (options.dryRun || rows.length === 0) return { dryRun: options.dryRun, rows, refused: [] };

  const hookId = await getRegisteredHookId(db);
  if (!hookId) throw new AppError("unavailable", "No webhook is registered with the provider yet.");
  const provider = options.provider ?? providerForDashboard();
  const refused: BulkRedeliverResult["refused"] = [];
  // One at a time: a provider that starts refusing (rate limit) is not hammered by the rest.
  for (const row of rows) {
    try {
      await provider.redeliver({ hookId, deliveryId: row.deliveryId });
    } catch (error) {
      refused.push({ eventId: row.eventId, error: toAppError(error).publicMessage });
    }
  }
  await recordAudit(
    {
      actor: auditActor(options.actor),
      action: "delivery.bulk_replay",
      tenantId: filters.tenantId ?? null,
      outcome: refused.length === 0 ? "requested" : refused.length === rows.length ? "failed" : "partly_requested",
      details: {
        filters: deliveryFilterParams(filters, { pinned: true }),
        requested: rows.length - refused.length,
        eventIds: rows.slice(0, 100).map((row) => row.eventId),
        ...(refused.length ? { refused: refused.slice(0, 20) } : {}),
      },
    },
    db,
  );
  return { dryRun: false, rows, refused };
}
