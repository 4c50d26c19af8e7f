import "server-only";
// Receipts of deliveries that never reached the claim: rejected ones (4xx) and failed ones (503).
// Accepted deliveries get their receipt inside the claim transaction (apply-key-event.ts).
import { prisma, type DbOrTx } from "../db/client";
import type { SignatureVerdict } from "./verify-signature";

export type RejectedReceipt = {
  receivedAt: Date;
  webhookId: string | null;
  tenantId?: string | null;
  eventId?: string | null;
  signatureVerdict: SignatureVerdict | "not_checked";
  status: number;
  outcome?: string | null;
  error: string;
  latencyMicros: number;
  bodyBytes: number;
  source?: "provider" | "replay";
  secretFingerprint?: string | null;
  clockSkewMs?: number | null;
};

export async function recordReceipt(receipt: RejectedReceipt, db: DbOrTx = prisma): Promise<void> {
  await db.receipt.create({
    data: {
      receivedAt: receipt.receivedAt,
      webhookId: receipt.webhookId?.slice(0, 200) ?? null,
      tenantId: receipt.tenantId?.slice(0, 200) ?? null,
      eventId: receipt.eventId?.slice(0, 200) ?? null,
      signatureVerdict: receipt.signatureVerdict,
      status: receipt.status,
      outcome: receipt.outcome ?? null,
      error: receipt.error.slice(0, 500),
      latencyMicros: Math.min(receipt.latencyMicros, 2_147_483_647),
      bodyBytes: Math.min(receipt.bodyBytes, 2_147_483_647),
      source: receipt.source ?? "provider",
      secretFingerprint: receipt.secretFingerprint ?? null,
      clockSkewMs: receipt.clockSkewMs ?? null,
    },
  });
}
