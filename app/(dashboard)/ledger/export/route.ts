import { csvStream } from "@/lib/csv/csv-stream";
import { exportsBusyError, withExportSlot } from "@/lib/csv/export-slot";
import { AppError, isAppError } from "@/lib/errors";
import { toResponse } from "@/lib/http/to-response";
import { ledgerCsvLines } from "@/lib/ledger/ledger-csv-lines";
import { parseLedgerFilters } from "@/lib/ledger/ledger-filters";
import { tenantScope } from "@/lib/auth/actor";
import { requireRouteActor } from "../../../_lib/session";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  const actor = await requireRouteActor("ledger.export");
  if (actor instanceof Response) return actor;
  const { filters, errors } = parseLedgerFilters(Object.fromEntries(new URL(request.url).searchParams));
  if (errors.length) return toResponse(new AppError("bad_request", errors.join(" ")));
  try {
    tenantScope(actor, filters.tenantId);
  } catch (error) {
    if (isAppError(error)) return toResponse(error);
    throw error;
  }
  // Its own concurrency limit (lib/csv/export-slot.ts): exports never starve ingest.
  const lines = await withExportSlot(ledgerCsvLines({ actor, filters }));
  if (!lines) return toResponse(exportsBusyError());
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
  return new Response(csvStream(lines), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="keyhook-ledger-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
}
