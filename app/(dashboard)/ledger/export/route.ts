import { tenantScope } from "@/lib/core/auth/actor";
import { ledgerCsvLines } from "@/lib/views/ledger/ledger-csv-lines";
import { parseLedgerFilters } from "@/lib/views/ledger/ledger-filters";
import { csvExportRoute } from "../../../_lib/csv-export-route";

export const dynamic = "force-dynamic";

export const GET = csvExportRoute({
  permission: "ledger.export",
  name: "ledger",
  parseFilters: parseLedgerFilters,
  // Another district's filter is a 404 before the download starts, like the ledger page.
  checkScope: (actor, filters) => tenantScope(actor, filters.tenantId),
  lines: ledgerCsvLines,
});
