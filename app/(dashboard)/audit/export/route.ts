import { auditCsvLines } from "@/lib/audit/audit-csv-lines";
import { parseAuditFilters } from "@/lib/audit/audit-filters";
import { csvStream } from "@/lib/csv/csv-stream";
import { exportsBusyResponse, withExportSlot } from "@/lib/csv/export-slot";
import { requireRouteActor } from "../../../_lib/session";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  const actor = await requireRouteActor("audit.export");
  if (actor instanceof Response) return actor;
  const { filters, errors } = parseAuditFilters(Object.fromEntries(new URL(request.url).searchParams));
  if (errors.length) return Response.json({ error: errors.join(" ") }, { status: 400 });
  // Its own concurrency limit (lib/csv/export-slot.ts): exports never starve ingest.
  const lines = await withExportSlot(auditCsvLines({ actor, filters }));
  if (!lines) return exportsBusyResponse();
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
  return new Response(csvStream(lines), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="keyhook-audit-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
}
