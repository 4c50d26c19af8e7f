import "server-only";
// One ledger entry with its stored payload and every delivery of that event we answered.
import { prisma, type DbOrTx } from "../db";
import { AppError } from "../errors";
import { tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";

export type ReceiptView = {
  id: bigint;
  receivedAt: Date;
  webhookId: string | null;
  signatureVerdict: string;
  status: number;
  outcome: string | null;
  error: string | null;
  latencyMicros: number;
  source: string;
};

export type LedgerEventDetail = {
  id: bigint;
  tenantId: string;
  eventId: string;
  type: string;
  keyId: string | null;
  previousKeyId: string | null;
  sequence: bigint | null;
  outcome: string;
  reason: string | null;
  payload: unknown;
  occurredAt: Date | null;
  receivedAt: Date;
  processingMicros: number;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  resolution: string | null;
  receipts: ReceiptView[];
};

export async function getLedgerEvent(options: { actor: Actor; id: string }, db: DbOrTx = prisma): Promise<LedgerEventDetail> {
  authorize(options.actor, "ledger.view");
  if (!/^\d{1,19}$/.test(options.id)) throw new AppError("not_found", "not found");
  const tenantId = tenantScope(options.actor);
  const event = await db.processedEvent.findFirst({ where: { id: BigInt(options.id), ...(tenantId ? { tenantId } : {}) } });
  if (!event) throw new AppError("not_found", "not found");
  const receipts = await db.receipt.findMany({
    where: {
      OR: [
        { eventId: event.eventId, tenantId: event.tenantId },
        // Deliveries rejected before we could read the tenant (bad signature) carry only the
        // webhook id: staff see them too; a district admin sees only what is provably theirs.
        ...(tenantId ? [] : [{ webhookId: event.eventId, tenantId: null }]),
      ],
    },
    orderBy: [{ receivedAt: "asc" }, { id: "asc" }],
    take: 500,
    select: { id: true, receivedAt: true, webhookId: true, signatureVerdict: true, status: true, outcome: true, error: true, latencyMicros: true, source: true },
  });
  return { ...event, receipts };
}
