import "server-only";
// One ledger entry with its stored payload and every delivery of that event we answered.
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import type { Actor } from "../../core/auth/actor";
import { districtScope, scopedTenantId, tenantWhere } from "../../core/tenancy/district-scope";
import { authorize } from "../../core/auth/permissions";
import { redactPayload } from "../../core/ingest/redact-payload";
import { MAX_PAYLOAD_DEPTH } from "../../core/ingest/storable-json";
import { printJson } from "../../core/json/print-json";
import { withRevokeConfirmations } from "./revoke-confirmations";

/** Ledger ids are bigint (int8): a longer or larger number names no row (404, not a database error). */
const MAX_LEDGER_ID = 9_223_372_036_854_775_807n;
/** Enough for any body under the size limit; a bigger or deeper stored value is cut, not a 500. */
const PAYLOAD_DISPLAY = { indent: 2, maxDepth: MAX_PAYLOAD_DEPTH, maxChars: 200_000 } as const;

type ReceiptView = {
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

type LedgerEventDetail = {
  id: bigint;
  tenantId: string;
  eventId: string;
  type: string;
  keyId: string | null;
  previousKeyId: string | null;
  sequence: bigint | null;
  outcome: string;
  reason: string | null;
  /** A key.revoked that confirms a revoke we asked the provider for. */
  confirmsOurRevoke: boolean;
  /**
   * The stored payload as text for display, through the contract allow-list (rows stored before
   * redaction existed are redacted here too), depth- and size-capped; null once purged.
   */
  payloadText: string | null;
  occurredAt: Date | null;
  receivedAt: Date;
  processingMicros: number;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  resolution: string | null;
  receipts: ReceiptView[];
};

export async function getLedgerEvent(
  options: { actor: Actor; id: string },
  db: DbOrTx = prisma,
): Promise<LedgerEventDetail> {
  authorize(options.actor, "ledger.view");
  if (!/^\d{1,19}$/.test(options.id) || BigInt(options.id) > MAX_LEDGER_ID)
    throw new AppError("not_found", "not found");
  const scope = districtScope(options.actor);
  const tenantId = scopedTenantId(scope);
  const found = await db.processedEvent.findFirst({ where: { id: BigInt(options.id), ...tenantWhere(scope) } });
  if (!found) throw new AppError("not_found", "not found");
  const { payload, ...event } = found;
  const payloadText =
    payload === null ? null : printJson(redactPayload(payload, { checkShapes: true }).payload, PAYLOAD_DISPLAY).text;
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
    select: {
      id: true,
      receivedAt: true,
      webhookId: true,
      signatureVerdict: true,
      status: true,
      outcome: true,
      error: true,
      latencyMicros: true,
      source: true,
    },
  });
  const confirmsOurRevoke = (await withRevokeConfirmations([event], db))[0]?.confirmsOurRevoke ?? false;
  return { ...event, confirmsOurRevoke, payloadText, receipts };
}
