import "server-only";
// The CSV export routes' one shape: authorize, parse the filters (a bad one is a 400 naming it),
// refuse filters outside the actor's scope before anything streams (a 404, like the page), take
// an export slot (lib/csv/export-slot.ts: exports never starve ingest; 503 when all are busy),
// then stream the lines as a dated attachment.
import type { Actor } from "@/lib/auth/actor";
import type { Permission } from "@/lib/auth/permissions";
import { csvStream } from "@/lib/csv/csv-stream";
import { exportsBusyError, withExportSlot } from "@/lib/csv/export-slot";
import { AppError, isAppError } from "@/lib/errors";
import { toResponse } from "@/lib/http/to-response";
import type { ParsedFilters, QueryParams } from "@/lib/listing/query-filters";
import { requireRouteActor } from "./session";

export function csvExportRoute<Filters>(spec: {
  permission: Permission;
  /** The file name's first part: keyhook-<name>-<UTC timestamp>.csv */
  name: string;
  parseFilters: (params: QueryParams) => ParsedFilters<Filters>;
  /** Throws an AppError for filters this actor may not use. */
  checkScope?: (actor: Actor, filters: Filters) => void;
  lines: (options: { actor: Actor; filters: Filters }) => AsyncIterable<string>;
}): (request: Request) => Promise<Response> {
  return async function GET(request) {
    const actor = await requireRouteActor(spec.permission);
    if (actor instanceof Response) return actor;
    const { filters, errors } = spec.parseFilters(Object.fromEntries(new URL(request.url).searchParams));
    if (errors.length) return toResponse(new AppError("bad_request", errors.join(" ")));
    try {
      spec.checkScope?.(actor, filters);
    } catch (error) {
      if (isAppError(error)) return toResponse(error);
      throw error;
    }
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
  };
}
