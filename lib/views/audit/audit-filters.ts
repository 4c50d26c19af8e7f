// The audit log's filters, parsed from a query string; bad input becomes form messages.
import { tooLongMessage } from "../../core/errors";
import {
  firstParam,
  parseTimeRange,
  setTimeRange,
  type ParsedFilters,
  type QueryParams,
} from "../listing/query-filters";

export type AuditFilters = {
  action?: string;
  actor?: string;
  outcome?: string;
  tenantId?: string;
  from?: Date;
  to?: Date;
};

const labels = { action: "Action", actor: "Who", outcome: "Outcome", tenant: "District" } as const;

export function parseAuditFilters(params: QueryParams): ParsedFilters<AuditFilters> {
  const errors: string[] = [];
  const filters: AuditFilters = {};
  for (const [name, field] of [
    ["action", "action"],
    ["actor", "actor"],
    ["outcome", "outcome"],
    ["tenant", "tenantId"],
  ] as const) {
    const raw = firstParam(params[name]);
    if (raw === undefined) continue;
    if (raw.length > 200) errors.push(`${labels[name]} is ${tooLongMessage(200, raw.length)}`);
    else filters[field] = raw;
  }
  Object.assign(filters, parseTimeRange(params, errors));
  return { filters, errors };
}

export function auditFiltersToQuery(filters: AuditFilters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.action) query.set("action", filters.action);
  if (filters.actor) query.set("actor", filters.actor);
  if (filters.outcome) query.set("outcome", filters.outcome);
  if (filters.tenantId) query.set("tenant", filters.tenantId);
  setTimeRange(query, filters);
  return query;
}
