import "server-only";
// One district: its keys and a timeline of its events. Another district's id is a 404.
//
// Sized for a district with thousands of keys: what needs a look (current keys) is
// listed whole up to a cap; the rest (inactive keys) one page at a time on a keyset (updated_at,
// id) descending, optionally of one status, with the counts per status from one grouped read of
// the district's (tenant_id, status) index entries. Exact counts: a district's keys are an index
// range of that district only, whatever the number of districts.
import { prisma, type DbOrTx } from "../db";
import { AppError } from "../errors";
import { tenantScope, type Actor } from "../auth/actor";
import { isCanaryTenant } from "../readiness/canary";
import { authorize } from "../auth/permissions";
import type { LedgerRow } from "../ledger/list-ledger";
import { decodeTextCursor, encodeTextCursor, type TextKeysetCursor } from "../listing/keyset-cursor";
import { LIVE_KEY_STATUSES, TERMINAL_KEY_STATUSES } from "../vocabulary";

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
  updatedAt: Date;
  /** Rotated or revoked within RECENT_KEY_MINUTES: still shown with the current keys. */
  recent: boolean;
};

export type RevokeState = "none" | "awaiting_confirmation" | "confirmed";

export function revokeStateOf(key: Pick<KeyView, "status" | "revokeRequestedAt" | "revokeConfirmedAt">): RevokeState {
  if (key.status !== "revoked") return "none";
  return key.revokeConfirmedAt ? "confirmed" : "awaiting_confirmation";
}

/**
 * A rotated or revoked key stays with the current keys this long after its last change, so the
 * person who revoked it sees the provider's confirmation on the row they clicked; then it folds
 * into the inactive keys.
 */
export const RECENT_KEY_MINUTES = 15;

/** A ledger row as the district timeline shows it. */
export type TimelineEvent = Pick<
  LedgerRow,
  "id" | "eventId" | "type" | "keyId" | "sequence" | "outcome" | "reason" | "receivedAt"
>;

export type DistrictDetail = {
  id: string;
  name: string | null;
  /** The highest sequence of an activation taken into the order (older activations are stale). */
  highWaterMark: bigint;
  /** The highest sequence of any event received, whatever its type and outcome (null: none tracked). */
  highestSequenceSeen: bigint | null;
  /**
   * What needs a look: active and superseded keys, revokes the provider has not confirmed, and
   * keys rotated or revoked in the last RECENT_KEY_MINUTES; in that order.
   */
  currentKeys: KeyView[];
  /** One page of the rest (rotated, or revoked and confirmed), most recently changed first. */
  inactiveKeys: KeyView[];
  /** Every inactive key of the district (whatever the status filter). */
  inactiveCount: number;
  /** Inactive keys per status (rotated, revoked). */
  inactiveByStatus: Record<InactiveKeyStatus, number>;
  /** Keys per status, current and inactive. */
  keyCounts: Record<string, number>;
  /** The status the inactive list is filtered to, if any. */
  inactiveStatus: InactiveKeyStatus | null;
  /** The cursor of the next page of inactive keys, or null on the last one. */
  nextInactiveCursor: string | null;
  /** currentKeys then this page of inactiveKeys. */
  keys: KeyView[];
  timeline: TimelineEvent[];
};

export const INACTIVE_KEYS_PER_PAGE = 20;
/** The inactive list shows the terminal statuses. */
export const INACTIVE_KEY_STATUSES = TERMINAL_KEY_STATUSES;
export type InactiveKeyStatus = (typeof INACTIVE_KEY_STATUSES)[number];
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
  options: {
    actor: Actor;
    tenantId: string;
    timelineLimit?: number;
    /** Only inactive keys of this status. */
    inactiveStatus?: InactiveKeyStatus;
    /** From encodeTextCursor / nextInactiveCursor: the position after the last inactive key shown. */
    inactiveCursor?: string;
    now?: Date;
  },
  db: DbOrTx = prisma,
): Promise<DistrictDetail> {
  authorize(options.actor, "districts.view");
  const tenantId = tenantScope(options.actor, options.tenantId);
  if (!tenantId || isCanaryTenant(tenantId)) throw new AppError("not_found", "not found");
  const tenant = await db.tenant.findUnique({ where: { id: tenantId } });
  if (!tenant) throw new AppError("not_found", "not found");
  const recentSince = new Date((options.now ?? new Date()).getTime() - RECENT_KEY_MINUTES * 60_000);
  const current = {
    tenantId,
    OR: [
      { status: { in: [...LIVE_KEY_STATUSES] } },
      { status: "revoked", revokeRequestedAt: { not: null }, revokeConfirmedAt: null },
      { status: { in: [...INACTIVE_KEY_STATUSES] }, updatedAt: { gte: recentSince } },
    ],
  };
  const inactiveStatus = options.inactiveStatus ?? null;
  const cursor: TextKeysetCursor | undefined = decodeTextCursor(options.inactiveCursor);
  const notCurrent = {
    tenantId,
    AND: [
      ...current.OR.map((condition) => ({ NOT: condition })),
      ...(inactiveStatus ? [{ status: inactiveStatus }] : []),
      ...(cursor
        ? [
            { updatedAt: { lte: cursor.at } },
            { OR: [{ updatedAt: { lt: cursor.at } }, { updatedAt: cursor.at, id: { lt: cursor.key } }] },
          ]
        : []),
    ],
  };
  const [currentKeys, inactivePage, counts, timeline] = await Promise.all([
    db.apiKey.findMany({
      where: current,
      orderBy: [{ updatedAt: "desc" }, { id: "asc" }],
      take: MAX_CURRENT_KEYS,
      select: { ...keySelect, updatedAt: true },
    }),
    db.apiKey.findMany({
      where: notCurrent,
      orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
      take: INACTIVE_KEYS_PER_PAGE + 1,
      select: { ...keySelect, updatedAt: true },
    }),
    db.$queryRaw<{ status: string; current: boolean; n: number }[]>`
      SELECT status,
        ((revoke_requested_at IS NOT NULL AND revoke_confirmed_at IS NULL) OR updated_at >= ${recentSince}) AS current,
        count(*)::int AS n
      FROM api_keys WHERE tenant_id = ${tenantId} GROUP BY 1, 2`,
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
  const keyCounts: Record<string, number> = {};
  const inactiveByStatus: Record<InactiveKeyStatus, number> = { rotated: 0, revoked: 0 };
  for (const { status, current, n } of counts) {
    keyCounts[status] = (keyCounts[status] ?? 0) + n;
    if ((status === "rotated" || status === "revoked") && !current) inactiveByStatus[status] += n;
  }
  const inactiveKeys = inactivePage.slice(0, INACTIVE_KEYS_PER_PAGE);
  const lastInactive = inactiveKeys[inactiveKeys.length - 1];
  const nextInactiveCursor =
    inactivePage.length > INACTIVE_KEYS_PER_PAGE && lastInactive
      ? encodeTextCursor({ at: lastInactive.updatedAt, key: lastInactive.id })
      : null;
  // The version of a key is the provider's sequence that activated it.
  const view = ({ activatedSeq, ...key }: (typeof inactivePage)[number]): KeyView => ({
    id: key.id,
    status: key.status,
    prefix: key.prefix,
    scopes: key.scopes,
    version: activatedSeq === null ? null : Number(activatedSeq),
    createdAt: key.createdAt,
    activatedAt: key.activatedAt,
    rotatedAt: key.rotatedAt,
    revokedAt: key.revokedAt,
    supersededAt: key.supersededAt,
    revokeRequestedAt: key.revokeRequestedAt,
    revokeConfirmedAt: key.revokeConfirmedAt,
    updatedAt: key.updatedAt,
    recent: (key.status === "rotated" || key.status === "revoked") && key.updatedAt >= recentSince,
  });
  // What needs a person first: the live key, then keys possibly live, then revokes in flight,
  // then the latest changes (newest first, as read).
  const rank = (key: KeyView) =>
    key.status === "active"
      ? 0
      : key.status === "superseded"
        ? 1
        : revokeStateOf(key) === "awaiting_confirmation"
          ? 2
          : 3;
  const currentViews = currentKeys.map(view).sort((a, b) => rank(a) - rank(b));
  const inactiveViews = inactiveKeys.map(view);
  return {
    id: tenant.id,
    name: tenant.name,
    highWaterMark: tenant.highWaterMark,
    highestSequenceSeen: tenant.lastSeenSequence,
    currentKeys: currentViews,
    inactiveKeys: inactiveViews,
    inactiveCount: inactiveByStatus.rotated + inactiveByStatus.revoked,
    inactiveByStatus,
    keyCounts,
    inactiveStatus,
    nextInactiveCursor,
    keys: [...currentViews, ...inactiveViews],
    timeline,
  };
}
