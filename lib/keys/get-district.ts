import "server-only";
// One district: its keys and a timeline of its events. Another district's id is a 404.
import { prisma, type DbOrTx } from "../db";
import { AppError } from "../errors";
import { tenantScope, type Actor } from "../auth/actor";
import { isCanaryTenant } from "../readiness/canary";
import { authorize } from "../auth/permissions";
import type { LedgerRow } from "../ledger/list-ledger";

/** What the browser may see of a key: never key material (we only ever hold its public prefix). */
export type KeyView = {
  id: string;
  status: string;
  prefix: string | null;
  scopes: string[];
  version: number | null;
  createdAt: Date;
  activatedAt: Date | null;
  rotatedAt: Date | null;
  revokedAt: Date | null;
  supersededAt: Date | null;
  revokeRequestedAt: Date | null;
  revokeConfirmedAt: Date | null;
};

export type RevokeState = "none" | "awaiting_confirmation" | "confirmed";

export function revokeStateOf(key: Pick<KeyView, "status" | "revokeRequestedAt" | "revokeConfirmedAt">): RevokeState {
  if (key.status !== "revoked") return "none";
  return key.revokeConfirmedAt ? "confirmed" : "awaiting_confirmation";
}

/** A ledger row as the district timeline shows it. */
export type TimelineEvent = Pick<LedgerRow, "id" | "eventId" | "type" | "keyId" | "sequence" | "outcome" | "reason" | "receivedAt">;

export type DistrictDetail = {
  id: string;
  name: string | null;
  highWaterMark: bigint;
  keys: KeyView[];
  timeline: TimelineEvent[];
};

export async function getDistrict(options: { actor: Actor; tenantId: string; timelineLimit?: number }, db: DbOrTx = prisma): Promise<DistrictDetail> {
  authorize(options.actor, "districts.view");
  const tenantId = tenantScope(options.actor, options.tenantId);
  if (!tenantId || isCanaryTenant(tenantId)) throw new AppError("not_found", "not found");
  const tenant = await db.tenant.findUnique({ where: { id: tenantId } });
  if (!tenant) throw new AppError("not_found", "not found");
  const [keys, timeline] = await Promise.all([
    db.apiKey.findMany({
      where: { tenantId },
      orderBy: [{ createdAt: "desc" }, { id: "asc" }],
      select: {
        id: true, status: true, prefix: true, scopes: true, activatedSeq: true, createdAt: true, activatedAt: true,
        rotatedAt: true, revokedAt: true, supersededAt: true, revokeRequestedAt: true, revokeConfirmedAt: true,
      },
    }),
    db.processedEvent.findMany({
      where: { tenantId },
      orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
      take: options.timelineLimit ?? 50,
      select: { id: true, eventId: true, type: true, keyId: true, sequence: true, outcome: true, reason: true, receivedAt: true },
    }),
  ]);
  return {
    id: tenant.id,
    name: tenant.name,
    highWaterMark: tenant.highWaterMark,
    // The version of a key is the provider's sequence that activated it.
    keys: keys.map(({ activatedSeq, ...key }) => ({ ...key, version: activatedSeq === null ? null : Number(activatedSeq) })),
    timeline,
  };
}
