import { csvStream } from "@/lib/csv/csv-stream";
import { exportsBusyResponse, withExportSlot } from "@/lib/csv/export-slot";
import { isAppError } from "@/lib/errors";
import { ledgerCsvLines } from "@/lib/ledger/ledger-csv-lines";
import { parseLedgerFilters } from "@/lib/ledger/ledger-filters";
import { tenantScope } from "@/lib/auth/actor";
import { requireRouteActor } from "../../../_lib/session";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  const actor = await requireRouteActor("ledger.export");
  if (actor instanceof Response) return actor;
  const { filters, errors } = parseLedgerFilters(Object.fromEntries(new URL(request.url).searchParams));
  if (errors.length) return Response.json({ error: errors.join(" ") }, { status: 400 });
  try {
    tenantScope(actor, filters.tenantId);
  } catch (error) {
    if (isAppError(error, "not_found")) return Response.json({ error: "not found" }, { status: 404 });
    throw error;
  }
  // Its own concurrency limit (lib/csv/export-slot.ts): exports never starve ingest.
  const lines = await withExportSlot(ledgerCsvLines({ actor, filters }));
  if (!lines) return exportsBusyResponse();
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
  return new Response(csvStream(lines), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="keyhook-ledger-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
}
