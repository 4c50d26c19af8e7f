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
export type TimelineEvent = Pick<
  LedgerRow,
  "id" | "eventId" | "type" | "keyId" | "sequence" | "outcome" | "reason" | "receivedAt"
>;

export type DistrictDetail = {
  id: string;
  name: string | null;
  highWaterMark: bigint;
  /** What needs a look: active and superseded keys, and revokes the provider has not confirmed. */
  currentKeys: KeyView[];
  /** One page of the rest (rotated, or revoked and confirmed), most recently changed first. */
  inactiveKeys: KeyView[];
  inactiveCount: number;
  inactivePage: number;
  inactivePageCount: number;
  /** currentKeys then this page of inactiveKeys. */
  keys: KeyView[];
  timeline: TimelineEvent[];
};

export const INACTIVE_KEYS_PER_PAGE = 20;
// Bounded by the invariants (one active key; superseded keys are alerts a human clears), but a
// runaway is capped rather than rendered whole.
const MAX_CURRENT_KEYS = 100;

const keySelect = {
  id: true,
  status: true,
  prefix: true,
  scopes: true,
  activatedSeq: true,
  createdAt: true,
  activatedAt: true,
  rotatedAt: true,
  revokedAt: true,
  supersededAt: true,
  revokeRequestedAt: true,
  revokeConfirmedAt: true,
} as const;

export async function getDistrict(
  options: { actor: Actor; tenantId: string; timelineLimit?: number; inactivePage?: number },
  db: DbOrTx = prisma,
): Promise<DistrictDetail> {
  authorize(options.actor, "districts.view");
  const tenantId = tenantScope(options.actor, options.tenantId);
  if (!tenantId || isCanaryTenant(tenantId)) throw new AppError("not_found", "not found");
  const tenant = await db.tenant.findUnique({ where: { id: tenantId } });
  if (!tenant) throw new AppError("not_found", "not found");
  const current = {
    tenantId,
    OR: [
      { status: { in: ["active", "superseded"] } },
      { status: "revoked", revokeRequestedAt: { not: null }, revokeConfirmedAt: null },
    ],
  };
  const notCurrent = { tenantId, AND: current.OR.map((condition) => ({ NOT: condition })) };
  const inactiveCount = await db.apiKey.count({ where: notCurrent });
  const inactivePageCount = Math.max(1, Math.ceil(inactiveCount / INACTIVE_KEYS_PER_PAGE));
  const inactivePage = Math.min(Math.max(1, Math.floor(options.inactivePage ?? 1)), inactivePageCount);
  const [currentKeys, inactiveKeys, timeline] = await Promise.all([
    db.apiKey.findMany({
      where: current,
      orderBy: [{ status: "asc" }, { createdAt: "desc" }, { id: "asc" }],
      take: MAX_CURRENT_KEYS,
      select: keySelect,
    }),
    db.apiKey.findMany({
      where: notCurrent,
      orderBy: [{ updatedAt: "desc" }, { id: "asc" }],
      skip: (inactivePage - 1) * INACTIVE_KEYS_PER_PAGE,
      take: INACTIVE_KEYS_PER_PAGE,
      select: keySelect,
    }),
    db.processedEvent.findMany({
      where: { tenantId },
      orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
      take: options.timelineLimit ?? 50,
      select: {
        id: true,
        eventId: true,
        type: true,
        keyId: true,
        sequence: true,
        outcome: true,
        reason: true,
        receivedAt: true,
      },
    }),
  ]);
  // The version of a key is the provider's sequence that activated it.
  const view = ({ activatedSeq, ...key }: (typeof currentKeys)[number]): KeyView => ({
    ...key,
    version: activatedSeq === null ? null : Number(activatedSeq),
  });
  const currentViews = currentKeys.map(view);
  const inactiveViews = inactiveKeys.map(view);
  return {
    id: tenant.id,
    name: tenant.name,
    highWaterMark: tenant.highWaterMark,
    currentKeys: currentViews,
    inactiveKeys: inactiveViews,
    inactiveCount,
    inactivePage,
    inactivePageCount,
    keys: [...currentViews, ...inactiveViews],
    timeline,
  };
}
