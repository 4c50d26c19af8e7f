import "server-only";
// The filtered audit log as CSV lines, one keyset page at a time (streamed).
import { prisma, type DbOrTx } from "../db";
import { csvLine } from "../csv/csv-line";
import type { Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
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
    const page = await listAudit({ actor: options.actor, filters: options.filters, cursor, limit: 1000 }, db);
    let chunk = "";
    for (const r of page.rows)
      chunk += csvLine([r.id, r.at, r.actor, r.action, r.tenantId, r.target, r.outcome, r.details]);
    if (chunk) yield chunk;
    const last = page.rows[page.rows.length - 1];
    if (!page.nextCursor || !last) return;
    cursor = { at: last.at, id: last.id };
  }
}
