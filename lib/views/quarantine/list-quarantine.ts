import "server-only";
// What needs a human: quarantined events not yet resolved, and superseded keys (a possibly-live
// credential nobody revoked: docs/design.md, invariant 4). One page of each at a time, with the
// totals: each set is read through its own partial index, so a count is an index walk of the open
// items only, never of the ledger; the open events' count stops at a bound and is estimated past
// it (a storm of misrouted events is not small: count-open-quarantine.ts). The events are
// keyset-paged on (received_at, id) descending, newest first.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { Actor } from "../../core/auth/actor";
import { districtScope, tenantWhere } from "../../core/tenancy/district-scope";
import { authorize } from "../../core/auth/permissions";
import { encodeCursor, type KeysetCursor } from "../listing/keyset-cursor";
import { countOpenQuarantine, type OpenQuarantineCount } from "./count-open-quarantine";

type QuarantinedEvent = {
  id: bigint;
  tenantId: string;
  eventId: string;
  type: string;
  keyId: string | null;
  reason: string | null;
  receivedAt: Date;
};

type SupersededKey = {
  id: string;
  tenantId: string;
  prefix: string | null;
  supersededAt: Date | null;
  supersededByKeyId: string | null;
};

type QuarantineView = {
  /** One page of the open quarantine, newest first. */
  events: QuarantinedEvent[];
  /** Every open (unresolved) quarantined event the actor may see: exact up to a bound, then estimated. */
  eventsTotal: OpenQuarantineCount;
  /** The cursor of the next page of events, or null on the last one. */
  nextCursor: string | null;
  /** The most recently superseded keys (at most one page). */
  supersededKeys: SupersededKey[];
  supersededTotal: number;
};

/** A page renders one resolve form per event: few enough to stay light. */
const QUARANTINE_PAGE_SIZE = 25;

export async function listQuarantine(
  options: { actor: Actor; cursor?: KeysetCursor; limit?: number },
  db: DbOrTx = prisma,
): Promise<QuarantineView> {
  authorize(options.actor, "quarantine.view");
  const scope = districtScope(options.actor);
  const where = tenantWhere(scope);
  const limit = Math.min(Math.max(options.limit ?? QUARANTINE_PAGE_SIZE, 1), 200);
  const open = { ...where, outcome: "quarantined", resolvedAt: null };
  // The `lte` bound is implied by the OR, but only a plain range lets the index scan start at the
  // cursor instead of filtering every newer open item (bench:dashboard's quarantine page at 10M rows).
  const after = options.cursor
    ? {
        receivedAt: { lte: options.cursor.at },
        OR: [
          { receivedAt: { lt: options.cursor.at } },
          { receivedAt: options.cursor.at, id: { lt: options.cursor.id } },
        ],
      }
    : {};
  const superseded = { ...where, status: "superseded" };
  const [events, eventsTotal, supersededKeys, supersededTotal] = await Promise.all([
    db.processedEvent.findMany({
      where: { ...open, ...after },
      orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
      take: limit + 1,
      select: { id: true, tenantId: true, eventId: true, type: true, keyId: true, reason: true, receivedAt: true },
    }),
    countOpenQuarantine({ scope }, db),
    db.apiKey.findMany({
      where: superseded,
      orderBy: [{ supersededAt: "desc" }, { id: "asc" }],
      take: limit,
      select: { id: true, tenantId: true, prefix: true, supersededAt: true, supersededByKeyId: true },
    }),
    db.apiKey.count({ where: superseded }),
  ]);
  const page = events.slice(0, limit);
  const last = page[page.length - 1];
  return {
    events: page,
    eventsTotal,
    nextCursor: events.length > limit && last ? encodeCursor({ at: last.receivedAt, id: last.id }) : null,
    supersededKeys,
    supersededTotal,
  };
}
