import "server-only";
// The dedupe ledger, filtered and keyset-paginated. Raw SQL so the row comparison
// (received_at, id) < (…) walks the (received_at, id) or (tenant_id, received_at, id) index
// backwards and stops after one page, whatever the table size.
import { prisma, type DbOrTx } from "../../core/db/client";
import { Prisma } from "../../generated/prisma/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { districtScope, tenantSql } from "../../core/tenancy/district-scope";
import { encodeCursor, type KeysetCursor } from "../listing/keyset-cursor";
import type { LedgerFilters } from "./ledger-filters";

export type LedgerRow = {
  id: bigint;
  tenantId: string;
  eventId: string;
  type: string;
  keyId: string | null;
  sequence: bigint | null;
  outcome: string;
  reason: string | null;
  receivedAt: Date;
  processingMicros: number;
  resolvedAt: Date | null;
};

export type LedgerPage = { rows: LedgerRow[]; nextCursor: string | null };

type SqlRow = {
  id: bigint;
  tenant_id: string;
  event_id: string;
  type: string;
  key_id: string | null;
  sequence: bigint | null;
  outcome: string;
  reason: string | null;
  received_at: Date;
  processing_micros: number;
  resolved_at: Date | null;
};

const LEDGER_PAGE_SIZE = 50;

export async function listLedger(
  options: { actor: Actor; filters: LedgerFilters; cursor?: KeysetCursor; limit?: number },
  db: DbOrTx = prisma,
): Promise<LedgerPage> {
  const limit = Math.min(Math.max(options.limit ?? LEDGER_PAGE_SIZE, 1), 1000);
  const rows = await db.$queryRaw<SqlRow[]>(ledgerPageSql({ ...options, limit: limit + 1 }));
  const page = rows.slice(0, limit).map(toLedgerRow);
  const last = page[page.length - 1];
  return {
    rows: page,
    nextCursor: rows.length > limit && last ? encodeCursor({ at: last.receivedAt, id: last.id }) : null,
  };
}

/** What one keyset page of the ledger is: who reads, which rows, from where, how many. */
export type LedgerPageOptions = { actor: Actor; filters: LedgerFilters; cursor?: KeysetCursor; limit: number };

/** The page query itself (authorized and scoped), exported so a test can EXPLAIN it. */
export function ledgerPageSql(options: LedgerPageOptions): Prisma.Sql {
  return Prisma.sql`
    SELECT id, tenant_id, event_id, type, key_id, sequence, outcome, reason, received_at, processing_micros, resolved_at
    FROM processed_events ${ledgerWhereSql(options)}
    ORDER BY received_at DESC, id DESC
    LIMIT ${options.limit}`;
}

/** The WHERE of every ledger read (authorized and scoped): the page above and the CSV export's pages. */
export function ledgerWhereSql(options: { actor: Actor; filters: LedgerFilters; cursor?: KeysetCursor }): Prisma.Sql {
  authorize(options.actor, "ledger.view");
  const scope = districtScope(options.actor, options.filters.tenantId);
  const { filters, cursor } = options;

  const conditions: Prisma.Sql[] = [tenantSql(scope)];
  if (filters.type) conditions.push(Prisma.sql`type = ${filters.type}`);
  if (filters.outcome) conditions.push(Prisma.sql`outcome = ${filters.outcome}`);
  if (filters.eventId) conditions.push(Prisma.sql`event_id = ${filters.eventId}`);
  if (filters.from) conditions.push(Prisma.sql`received_at >= ${filters.from}::timestamptz`);
  if (filters.to) conditions.push(Prisma.sql`received_at < ${filters.to}::timestamptz`);
  if (cursor) conditions.push(Prisma.sql`(received_at, id) < (${cursor.at}::timestamptz, ${cursor.id}::bigint)`);
  return conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
}

function toLedgerRow(row: SqlRow): LedgerRow {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    eventId: row.event_id,
    type: row.type,
    keyId: row.key_id,
    sequence: row.sequence,
    outcome: row.outcome,
    reason: row.reason,
    receivedAt: row.received_at,
    processingMicros: row.processing_micros,
    resolvedAt: row.resolved_at,
  };
}
