import { auditCsvLines } from "@/lib/views/audit/audit-csv-lines";
import { parseAuditFilters } from "@/lib/views/audit/audit-filters";
import { csvExportRoute } from "../../../_lib/csv-export-route";

export const dynamic = "force-dynamic";

export const GET = csvExportRoute({
  permission: "audit.export",
  name: "audit",
  parseFilters: parseAuditFilters,
  lines: auditCsvLines,
});
