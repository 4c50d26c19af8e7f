import { auditCsvLines } from "@/lib/audit/audit-csv-lines";
import { parseAuditFilters } from "@/lib/audit/audit-filters";
import { csvStream } from "@/lib/csv/csv-stream";
import { exportsBusyError, withExportSlot } from "@/lib/csv/export-slot";
import { AppError } from "@/lib/errors";
import { toResponse } from "@/lib/http/to-response";
import { requireRouteActor } from "../../../_lib/session";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  const actor = await requireRouteActor("audit.export");
  if (actor instanceof Response) return actor;
  const { filters, errors } = parseAuditFilters(Object.fromEntries(new URL(request.url).searchParams));
  if (errors.length) return toResponse(new AppError("bad_request", errors.join(" ")));
  // Its own concurrency limit (lib/csv/export-slot.ts): exports never starve ingest.
  const lines = await withExportSlot(auditCsvLines({ actor, filters }));
  if (!lines) return toResponse(exportsBusyError());
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
  return new Response(csvStream(lines), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="keyhook-audit-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
}
