import "server-only";
// A cheap fingerprint of "what the dashboard shows" for the actor: open pages poll it and
// re-render only when it changes (components/live-refresh.tsx). Every change a page can show
// leaves a new row behind: a delivery (receipt), a claimed event or quarantine item (ledger), a
// human action (audit log); a key changed by a human or a webhook moves api_keys.updated_at; an
// alert raised, refreshed, acknowledged or resolved by a background job (sweep, drift check, gap
// alerts, a failing channel) moves the alerts part: how many need a human, and their newest
// last_seen_at (every raise writes it). Each part is an index probe, or a count of the alerts
// still needing a human (few), so a poll costs the same at 10 rows or 10 million.
import { prisma, type DbOrTx } from "../../core/db/client";
import { Prisma } from "../../generated/prisma/client";
import type { Actor } from "../../core/auth/actor";
import { districtScope, scopedTenantId } from "../../core/tenancy/district-scope";
import { authorize } from "../../core/auth/permissions";

// Many pages poll at once; within this window every poll of one scope shares one query.
const SHARE_MS = 1_000;
const shared = new Map<string, { at: number; token: Promise<string> }>();

export async function changeToken(options: { actor: Actor; now?: number }, db: DbOrTx = prisma): Promise<string> {
  authorize(options.actor, "overview.view");
  const tenantId = scopedTenantId(districtScope(options.actor));
  const scope = tenantId ?? "*";
  const now = options.now ?? Date.now();
  const hit = shared.get(scope);
  if (hit && now - hit.at < SHARE_MS) return hit.token;
  const token = readToken(tenantId, db);
  shared.set(scope, { at: now, token });
  token.catch(() => shared.delete(scope));
  return token;
}

async function readToken(tenantId: string | null, db: DbOrTx): Promise<string> {
  const inScope = tenantId ? Prisma.sql`AND tenant_id = ${tenantId}` : Prisma.empty;
  const alerts = Prisma.sql`
    (SELECT concat_ws('/', count(*) FILTER (WHERE state = 'open'), count(*), max(last_seen_at))
      FROM alerts WHERE state IN ('open', 'acknowledged') ${inScope}),
    (SELECT max(last_seen_at) FROM alerts WHERE state = 'resolved' ${inScope})`;
  const rows = tenantId
    ? await db.$queryRaw<{ token: string }[]>`
        SELECT concat_ws(':',
          (SELECT id FROM processed_events WHERE tenant_id = ${tenantId} ORDER BY received_at DESC, id DESC LIMIT 1),
          (SELECT max(updated_at) FROM api_keys WHERE tenant_id = ${tenantId}),
          (SELECT count(*) FROM api_keys WHERE tenant_id = ${tenantId}),
          ${alerts}) AS token`
    : await db.$queryRaw<{ token: string }[]>`
        SELECT concat_ws(':',
          (SELECT max(id) FROM receipts),
          (SELECT max(id) FROM processed_events),
          (SELECT max(id) FROM audit_log),
          ${alerts}) AS token`;
  return rows[0]?.token ?? "";
}

/** Tests run several scenarios in one process. */
export function forgetSharedTokensForTests(): void {
  shared.clear();
}
