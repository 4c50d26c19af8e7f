import "server-only";
// One district: its keys and a timeline of its events. Another district's id is a 404.
//
// Sized for a district with thousands of keys: what needs a look (current keys) is
// listed whole up to a cap; the rest (inactive keys) one page at a time on a keyset (updated_at,
// id) descending, optionally of one status, with the counts per status from one grouped read of
// the district's (tenant_id, status) index entries. Exact counts: a district's keys are an index
// range of that district only, whatever the number of districts.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { Prisma } from "../../generated/prisma/client";
import { AppError } from "../../core/errors";
import type { Actor } from "../../core/auth/actor";
import { districtScope, scopedTenantId } from "../../core/tenancy/district-scope";
import { authorize } from "../../core/auth/permissions";
import type { LedgerRow } from "../ledger/list-ledger";
import { withRevokeConfirmations } from "../ledger/revoke-confirmations";
import { decodeTextCursor, encodeTextCursor, type TextKeysetCursor } from "../listing/keyset-cursor";
import { LIVE_KEY_STATUSES, TERMINAL_KEY_STATUSES, type TerminalKeyStatus } from "../../core/vocabulary";
import { platformAdminContacts, type Contact } from "./platform-admin-contacts";
import { listProviderRequests, type ProviderRequest } from "./provider-requests";

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
  /**
   * A superseded key whose own activation was stale: the provider numbered it at or below the
   * district's newest activation here, so it never became active here (it may work there).
   */
  arrivedStale: { sequence: number } | null;
};

type RevokeState = "none" | "awaiting_confirmation" | "confirmed";

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
type TimelineEvent = Pick<
  LedgerRow,
  "id" | "eventId" | "type" | "keyId" | "sequence" | "outcome" | "reason" | "receivedAt"
> & { confirmsOurRevoke: boolean };

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
  inactiveByStatus: Record<TerminalKeyStatus, number>;
  /** Keys per status, current and inactive. */
  keyCounts: Record<string, number>;
  /** The status the inactive list is filtered to, if any. */
  inactiveStatus: TerminalKeyStatus | null;
  /** The cursor of the next page of inactive keys, or null on the last one. */
  nextInactiveCursor: string | null;
  /** currentKeys then this page of inactiveKeys. */
  keys: KeyView[];
  timeline: TimelineEvent[];
  /** The recent requests to the provider (issue, rotate, revoke) and what became of them. */
  providerRequests: ProviderRequest[];
  /** Whom to ask for what a district admin may not do (issue, rotate): the platform admins. */
  platformAdmins: Contact[];
};

export const INACTIVE_KEYS_PER_PAGE = 20;
/** The inactive list shows the terminal statuses. */

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
  lastEventId: true,
  updatedAt: true,
} as const;

type KeyRow = Prisma.ApiKeyGetPayload<{ select: typeof keySelect }>;

export async function getDistrict(
  options: {
    actor: Actor;
    tenantId: string;
    timelineLimit?: number;
    /** Only inactive keys of this status. */
    inactiveStatus?: TerminalKeyStatus;
    /** From encodeTextCursor / nextInactiveCursor: the position after the last inactive key shown. */
    inactiveCursor?: string;
    now?: Date;
  },
  db: DbOrTx = prisma,
): Promise<DistrictDetail> {
  authorize(options.actor, "districts.view");
  const tenant = await districtInScope(options.actor, options.tenantId, db);
  const tenantId = tenant.id;
  const recentSince = new Date((options.now ?? new Date()).getTime() - RECENT_KEY_MINUTES * 60_000);
  const inactiveStatus = options.inactiveStatus ?? null;
  const cursor = decodeTextCursor(options.inactiveCursor);
  const [currentKeys, inactivePage, counts, events, providerRequests, platformAdmins] = await Promise.all([
    readCurrentKeys(tenantId, recentSince, db),
    readInactivePage(tenantId, recentSince, { status: inactiveStatus, cursor }, db),
    countKeysByStatus(tenantId, recentSince, db),
    readTimeline(tenantId, options.timelineLimit ?? 50, db),
    listProviderRequests({ tenantId, highWaterMark: tenant.highWaterMark, now: options.now }, db),
    options.actor.role === "district_admin" ? platformAdminContacts(db) : Promise.resolve([]),
  ]);
  const timeline = await withRevokeConfirmations(
    events.map((event) => ({ ...event, tenantId })),
    db,
  );
  const view = keyView(recentSince, await staleActivationSequences(tenantId, currentKeys, db));
  const { keyCounts, inactiveByStatus } = tallyKeyCounts(counts);
  const { inactiveKeys, nextInactiveCursor } = inactivePageOf(inactivePage);
  const currentViews = currentKeys.map(view).sort((a, b) => attentionRank(a) - attentionRank(b));
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
    providerRequests,
    platformAdmins,
  };
}

/** The district, if the actor's scope holds it; another district's id is a 404. */
async function districtInScope(actor: Actor, tenantId: string, db: DbOrTx) {
  const scoped = scopedTenantId(districtScope(actor, tenantId));
  if (!scoped) throw new AppError("not_found", "not found");
  const tenant = await db.tenant.findUnique({ where: { id: scoped } });
  if (!tenant) throw new AppError("not_found", "not found");
  return tenant;
}

/** What counts as current (see DistrictDetail.currentKeys); every other key is inactive. */
function currentKeyConditions(recentSince: Date): Prisma.ApiKeyWhereInput[] {
  return [
    { status: { in: [...LIVE_KEY_STATUSES] } },
    { status: "revoked", revokeRequestedAt: { not: null }, revokeConfirmedAt: null },
    { status: { in: [...TERMINAL_KEY_STATUSES] }, updatedAt: { gte: recentSince } },
  ];
}

function readCurrentKeys(tenantId: string, recentSince: Date, db: DbOrTx): Promise<KeyRow[]> {
  return db.apiKey.findMany({
    where: { tenantId, OR: currentKeyConditions(recentSince) },
    orderBy: [{ updatedAt: "desc" }, { id: "asc" }],
    take: MAX_CURRENT_KEYS,
    select: keySelect,
  });
}

/** One page (and one more row, to tell whether a next page exists) on the (updated_at, id) keyset. */
function readInactivePage(
  tenantId: string,
  recentSince: Date,
  filter: { status: TerminalKeyStatus | null; cursor: TextKeysetCursor | undefined },
  db: DbOrTx,
): Promise<KeyRow[]> {
  const { status, cursor } = filter;
  return db.apiKey.findMany({
    where: {
      tenantId,
      AND: [
        ...currentKeyConditions(recentSince).map((condition) => ({ NOT: condition })),
        ...(status ? [{ status }] : []),
        ...(cursor
          ? [
              { updatedAt: { lte: cursor.at } },
              { OR: [{ updatedAt: { lt: cursor.at } }, { updatedAt: cursor.at, id: { lt: cursor.key } }] },
            ]
          : []),
      ],
    },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: INACTIVE_KEYS_PER_PAGE + 1,
    select: keySelect,
  });
}

type StatusCount = { status: string; current: boolean; n: number };

/** One grouped read of the district's (tenant_id, status) index entries. */
function countKeysByStatus(tenantId: string, recentSince: Date, db: DbOrTx): Promise<StatusCount[]> {
  return db.$queryRaw<StatusCount[]>`
      SELECT status,
        ((revoke_requested_at IS NOT NULL AND revoke_confirmed_at IS NULL) OR updated_at >= ${recentSince}) AS current,
        count(*)::int AS n
      FROM api_keys WHERE tenant_id = ${tenantId} GROUP BY 1, 2`;
}

function readTimeline(tenantId: string, limit: number, db: DbOrTx) {
  return db.processedEvent.findMany({
    where: { tenantId },
    orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
    take: limit,
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
  });
}

/** Which superseded keys arrived stale: their activating event (the key's last event) says so. */
async function staleActivationSequences(
  tenantId: string,
  currentKeys: KeyRow[],
  db: DbOrTx,
): Promise<Map<string | null, bigint | null>> {
  const superseded = currentKeys.filter((key) => key.status === "superseded" && key.lastEventId);
  const staleActivations = superseded.length
    ? await db.processedEvent.findMany({
        where: {
          tenantId,
          eventId: { in: superseded.map((key) => key.lastEventId!) },
          outcome: "stale",
          type: { in: ["key.created", "key.rotated"] },
        },
        select: { keyId: true, sequence: true },
      })
    : [];
  return new Map(staleActivations.map((event) => [event.keyId, event.sequence]));
}

function tallyKeyCounts(counts: StatusCount[]): {
  keyCounts: Record<string, number>;
  inactiveByStatus: Record<TerminalKeyStatus, number>;
} {
  const keyCounts: Record<string, number> = {};
  const inactiveByStatus: Record<TerminalKeyStatus, number> = { rotated: 0, revoked: 0 };
  for (const { status, current, n } of counts) {
    keyCounts[status] = (keyCounts[status] ?? 0) + n;
    if ((status === "rotated" || status === "revoked") && !current) inactiveByStatus[status] += n;
  }
  return { keyCounts, inactiveByStatus };
}

function inactivePageOf(inactivePage: KeyRow[]): { inactiveKeys: KeyRow[]; nextInactiveCursor: string | null } {
  const inactiveKeys = inactivePage.slice(0, INACTIVE_KEYS_PER_PAGE);
  const lastInactive = inactiveKeys[inactiveKeys.length - 1];
  const nextInactiveCursor =
    inactivePage.length > INACTIVE_KEYS_PER_PAGE && lastInactive
      ? encodeTextCursor({ at: lastInactive.updatedAt, key: lastInactive.id })
      : null;
  return { inactiveKeys, nextInactiveCursor };
}

/** A key row as the browser may see it; the version of a key is the provider's sequence that activated it. */
function keyView(recentSince: Date, staleSequence: Map<string | null, bigint | null>) {
  return ({ activatedSeq, ...key }: KeyRow): KeyView => {
    const staleAt = key.status === "superseded" ? staleSequence.get(key.id) : undefined;
    return {
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
      arrivedStale: staleAt === undefined || staleAt === null ? null : { sequence: Number(staleAt) },
    };
  };
}

/**
 * What needs a person first: the live key, then keys possibly live, then revokes in flight, then
 * the latest changes (newest first, as read).
 */
function attentionRank(key: KeyView): number {
  return key.status === "active"
    ? 0
    : key.status === "superseded"
      ? 1
      : revokeStateOf(key) === "awaiting_confirmation"
        ? 2
        : 3;
}
