import "server-only";
// The CSV export routes' one shape: authorize, parse the filters (a bad one is a 400 naming it),
// refuse filters outside the actor's scope before anything streams (a 404, like the page), take
// an export slot (lib/views/csv/export-slot.ts: exports never starve ingest; 503 when all are busy),
// then stream the lines as a dated attachment.
import type { Actor } from "@/lib/core/auth/actor";
import type { Permission } from "@/lib/core/auth/permissions";
import { csvStream } from "@/lib/views/csv/csv-stream";
import { exportsBusyError, withExportSlot } from "@/lib/views/csv/export-slot";
import { AppError } from "@/lib/core/errors";
import { toResponse } from "@/http/to-response";
import type { ParsedFilters, QueryParams } from "@/lib/views/listing/query-filters";
import { machineRoute } from "./machine-route";

export function csvExportRoute<Filters>(spec: {
  permission: Permission;
  /** The file name's first part: keyhook-<name>-<UTC timestamp>.csv */
  name: string;
  parseFilters: (params: QueryParams) => ParsedFilters<Filters>;
  /** Throws an AppError for filters this actor may not use. */
  checkScope?: (actor: Actor, filters: Filters) => void;
  lines: (options: { actor: Actor; filters: Filters }) => AsyncIterable<string>;
}): (request: Request) => Promise<Response> {
  return machineRoute(`${spec.name}.export`, { permission: spec.permission }, async (request, actor) => {
    const { filters, errors } = spec.parseFilters(Object.fromEntries(new URL(request.url).searchParams));
    if (errors.length) return toResponse(new AppError("bad_request", errors.join(" ")));
    spec.checkScope?.(actor, filters);
    const lines = await withExportSlot(spec.lines({ actor, filters }));
    if (!lines) return toResponse(exportsBusyError());
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
    return new Response(csvStream(lines), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="keyhook-${spec.name}-${stamp}.csv"`,
        "cache-control": "no-store",
      },
    });
  });
}
