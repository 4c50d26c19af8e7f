import "server-only";
// The districts an actor may see, with what a human needs at a glance (superseded keys, revokes in
// flight, quarantined events, missing events, drift): one page of them at a
// time (keyset on id), searchable by id prefix or name substring. Built for 100,000 districts:
// the page's figures are per-district index probes (correlated subqueries), never a scan of all
// keys or all claims.
import { prisma, type DbOrTx } from "../../core/db/client";
import { Prisma } from "../../generated/prisma/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { AppError, tooLongMessage } from "../../core/errors";
import { MAX_DISTRICT_SEARCH } from "./district-filters";
import { DRIFT_KINDS } from "../../operations/alerts/alert-kinds";
import { districtScope, tenantSql } from "../../core/tenancy/district-scope";

export type DistrictSummary = {
  id: string;
  name: string | null;
  activeKeys: number;
  supersededKeys: number;
  pendingRevokes: number;
  /** Events of the district waiting in quarantine for a human. */
  quarantined: number;
  /** Sequences skipped and not arrived yet (open gaps, in events). */
  missingEvents: number;
  /** Open drift alerts: keys the provider and we disagree on. */
  drift: number;
  lastEventAt: Date | null;
};

export type DistrictsPage = { rows: DistrictSummary[]; nextAfter: string | null };

const DISTRICTS_PAGE_SIZE = 100;

type ListDistrictsOptions = {
  actor: Actor;
  /** An id prefix or a part of the name, any case. */
  search?: string;
  /** The last id of the previous page. */
  after?: string;
  limit?: number;
};

/** The first page (500 rows, as before paging existed); use listDistrictsPage to page and search. */
export async function listDistricts(options: { actor: Actor }, db: DbOrTx = prisma): Promise<DistrictSummary[]> {
  return (await listDistrictsPage({ actor: options.actor, limit: 500 }, db)).rows;
}

type Row = {
  id: string;
  name: string | null;
  active_keys: number;
  superseded_keys: number;
  pending_revokes: number;
  quarantined: number;
  missing_events: number;
  drift: number;
  last_event_at: Date | null;
};

export async function listDistrictsPage(options: ListDistrictsOptions, db: DbOrTx = prisma): Promise<DistrictsPage> {
  const limit = Math.min(Math.max(options.limit ?? DISTRICTS_PAGE_SIZE, 1), 500);
  const rows = await db.$queryRaw<Row[]>(districtsPageSql({ ...options, limit: limit + 1 }));
  const page = rows.slice(0, limit).map((r) => ({
    id: r.id,
    name: r.name,
    activeKeys: r.active_keys,
    supersededKeys: r.superseded_keys,
    pendingRevokes: r.pending_revokes,
    quarantined: r.quarantined,
    missingEvents: r.missing_events,
    drift: r.drift,
    lastEventAt: r.last_event_at,
  }));
  return { rows: page, nextAfter: rows.length > limit ? page[page.length - 1]!.id : null };
}

/** The page query itself, authorized and scoped. */
function districtsPageSql(options: ListDistrictsOptions & { limit: number }): Prisma.Sql {
  authorize(options.actor, "districts.view");
  const conditions: Prisma.Sql[] = [tenantSql(districtScope(options.actor), "id")];
  const search = options.search?.trim();
  if (search && search.length > MAX_DISTRICT_SEARCH)
    throw new AppError("bad_request", `Search is ${tooLongMessage(MAX_DISTRICT_SEARCH, search.length)}`);
  if (search) {
    const escaped = search.replace(/[\\%_]/g, (c) => "\\" + c);
    conditions.push(Prisma.sql`(id LIKE ${escaped + "%"} OR name ILIKE ${"%" + escaped + "%"})`);
  }
  if (options.after) conditions.push(Prisma.sql`id > ${options.after}`);
  const where = conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
  return Prisma.sql`
    SELECT t.id, t.name,
      (SELECT count(*)::int FROM api_keys k WHERE k.tenant_id = t.id AND k.status = 'active') AS active_keys,
      (SELECT count(*)::int FROM api_keys k WHERE k.tenant_id = t.id AND k.status = 'superseded') AS superseded_keys,
      (SELECT count(*)::int FROM api_keys k
        WHERE k.tenant_id = t.id AND k.revoke_requested_at IS NOT NULL AND k.revoke_confirmed_at IS NULL) AS pending_revokes,
      (SELECT count(*)::int FROM processed_events q
        WHERE q.tenant_id = t.id AND q.outcome = 'quarantined' AND q.resolved_at IS NULL) AS quarantined,
      (SELECT coalesce(sum(g.to_seq - g.from_seq + 1), 0)::int FROM sequence_gaps g
        WHERE g.tenant_id = t.id AND g.closed_at IS NULL) AS missing_events,
      (SELECT count(*)::int FROM alerts a
        WHERE a.tenant_id = t.id AND a.state <> 'resolved' AND a.kind IN (${Prisma.join([...DRIFT_KINDS])})) AS drift,
      (SELECT pe.received_at FROM processed_events pe WHERE pe.tenant_id = t.id
        ORDER BY pe.received_at DESC, pe.id DESC LIMIT 1) AS last_event_at
    FROM (SELECT id, name FROM tenants ${where} ORDER BY id LIMIT ${options.limit}) t
    ORDER BY t.id`;
}
