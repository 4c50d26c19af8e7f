import "server-only";
// A JSON-lines download (the audit chain and its checkpoints): authorize, take an export slot like
// the CSV exports (lib/views/csv/export-slot.ts), stream the lines as a dated attachment.
import type { Actor } from "@/lib/core/auth/actor";
import type { Permission } from "@/lib/core/auth/permissions";
import { csvStream } from "@/lib/views/csv/csv-stream";
import { exportsBusyError, withExportSlot } from "@/lib/views/csv/export-slot";
import { toResponse } from "@/http/to-response";
import { machineRoute } from "./machine-route";

export function jsonlExportRoute(spec: {
  permission: Permission;
  /** keyhook-<name>-<UTC timestamp>.jsonl */
  name: string;
  lines: (options: { actor: Actor }) => AsyncIterable<string>;
}): (request: Request) => Promise<Response> {
  return machineRoute(`${spec.name}.export`, { permission: spec.permission }, async (_request, actor) => {
    const lines = await withExportSlot(spec.lines({ actor }));
    if (!lines) return toResponse(exportsBusyError());
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
    return new Response(csvStream(lines), {
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="keyhook-${spec.name}-${stamp}.jsonl"`,
        "cache-control": "no-store",
      },
    });
  });
}
