import "server-only";
// The filtered ledger as CSV lines, read one keyset page at a time (streamed, never all in memory).
import { prisma, type DbOrTx } from "../db";
import { csvLine } from "../csv/csv-line";
import type { Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";
import type { KeysetCursor } from "../listing/keyset-cursor";
import type { LedgerFilters } from "./ledger-filters";
import { listLedger } from "./list-ledger";

const BATCH = 1000;

export async function* ledgerCsvLines(
  options: { actor: Actor; filters: LedgerFilters },
  db: DbOrTx = prisma,
): AsyncGenerator<string> {
  authorize(options.actor, "ledger.export");
  yield csvLine([
    "ledger_id",
    "tenant_id",
    "event_id",
    "type",
    "key_id",
    "sequence",
    "outcome",
    "reason",
    "received_at",
    "processing_micros",
  ]);
  let cursor: KeysetCursor | undefined;
  for (;;) {
    const page = await listLedger({ actor: options.actor, filters: options.filters, cursor, limit: BATCH }, db);
    let chunk = "";
    for (const row of page.rows) {
      chunk += csvLine([
        row.id,
        row.tenantId,
        row.eventId,
        row.type,
        row.keyId,
        row.sequence,
        row.outcome,
        row.reason,
        row.receivedAt,
        row.processingMicros,
      ]);
    }
    if (chunk) yield chunk;
    const last = page.rows[page.rows.length - 1];
    if (!page.nextCursor || !last) return;
    cursor = { at: last.receivedAt, id: last.id };
  }
}
