import "server-only";
// The filtered audit log as CSV lines, one keyset page at a time (streamed). Written in Node, not
// by PostgreSQL like the ledger's (its `details` column is JSON, written as JSON.stringify writes
// it), but built in a function of its own and handed over (lib/views/csv/take-text.ts), so neither the
// page's rows nor its text stay referenced while the generator waits at its yield.
import { prisma, type DbOrTx } from "../../core/db/client";
import { csvLine } from "../csv/csv-line";
import { takeText } from "../csv/take-text";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import type { KeysetCursor } from "../listing/keyset-cursor";
import type { AuditFilters } from "./audit-filters";
import { listAudit } from "./list-audit";

export async function* auditCsvLines(
  options: { actor: Actor; filters: AuditFilters },
  db: DbOrTx = prisma,
): AsyncGenerator<string> {
  authorize(options.actor, "audit.export");
  yield csvLine(["id", "at", "actor", "action", "tenant_id", "target", "outcome", "details"]);
  let cursor: KeysetCursor | undefined;
  for (;;) {
    const page = await auditCsvPage(options, cursor, db);
    cursor = page.next;
    if (page.text) yield takeText(page);
    if (!cursor) return;
  }
}

async function auditCsvPage(
  options: { actor: Actor; filters: AuditFilters },
  cursor: KeysetCursor | undefined,
  db: DbOrTx,
): Promise<{ text: string | null; next?: KeysetCursor }> {
  const page = await listAudit({ actor: options.actor, filters: options.filters, cursor, limit: 1000 }, db);
  let text = "";
  for (const r of page.rows)
    text += csvLine([r.id, r.at, r.actor, r.action, r.tenantId, r.target, r.outcome, r.details]);
  const last = page.rows[page.rows.length - 1];
  return { text: text || null, next: page.nextCursor && last ? { at: last.at, id: last.id } : undefined };
}
