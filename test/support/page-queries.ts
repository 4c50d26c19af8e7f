// The data behind every dashboard page, as the pages ask for it (the same lib/ services and
// arguments), for a fill made by fill-scale.ts. Used by the plan-shape test (which EXPLAINs every
// statement these issue) and by bench:dashboard (which times them apart from rendering).
import type { Actor } from "../../lib/core/auth/actor";
import type { DbOrTx } from "../../lib/core/db/client";
import { listAudit } from "../../lib/views/audit/list-audit";
import { listDeliveries } from "../../lib/views/deliveries/list-deliveries";
import { getDistrict } from "../../lib/views/districts/get-district";
import { listDistrictsPage } from "../../lib/views/districts/list-districts";
import { getLedgerEvent } from "../../lib/views/ledger/get-ledger-event";
import { listLedger } from "../../lib/views/ledger/list-ledger";
import { getOverview } from "../../lib/views/overview/get-overview";
import { getRetentionView } from "../../lib/views/retention/retention-view";
import { encodeCursor, encodeTextCursor } from "../../lib/views/listing/keyset-cursor";
import { listQuarantine } from "../../lib/views/quarantine/list-quarantine";
import { BIG_DISTRICT } from "./fill-scale";

export const PLATFORM_ADMIN: Actor = {
  id: "u_bench_admin",
  email: "admin@keyhook.test",
  name: null,
  role: "platform_admin",
  tenantId: null,
};

export type PageQuery = { page: string; run: (db?: DbOrTx) => Promise<unknown> };

/** Page paths with the same positions as the queries below (bench:dashboard's full GETs). */
export function pagingPaths(at = new Date()): { quarantineCursor: string; keysCursor: string } {
  // From the start of the UTC day: the same paths all day, so runs of one day compare page by page.
  const now = new Date(Math.floor(at.getTime() / 86_400_000) * 86_400_000);
  return {
    quarantineCursor: encodeCursor({ at: new Date(now.getTime() - 7 * 86_400_000), id: 2n ** 62n }),
    keysCursor: encodeTextCursor({ at: new Date(now.getTime() - 20 * 86_400_000), key: "key_big_~" }),
  };
}

export function pageQueries(options: { claims: number; districts: number; ledgerId: string; now?: Date }): PageQuery[] {
  const actor = PLATFORM_ADMIN;
  const districtAdmin: Actor = { ...actor, id: "u_bench_da", role: "district_admin", tenantId: BIG_DISTRICT };
  const middleDistrict = `district-${String(Math.floor(options.districts / 2)).padStart(6, "0")}`;
  const eventId = `evt_fill_${Math.floor(options.claims / 3)}`;
  const now = options.now ?? new Date();
  const hourStart = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000 - 3 * 86_400_000);
  const hourEnd = new Date(hourStart.getTime() + 3_600_000);
  const day = new Date(now.getTime() - 86_400_000);
  // Positions in the middle of a list, as a "Next page" link would carry them.
  const { keysCursor } = pagingPaths(now);
  return [
    { page: "overview (staff)", run: (db) => getOverview({ actor }, db) },
    { page: "overview (district admin)", run: (db) => getOverview({ actor: districtAdmin }, db) },
    { page: "districts", run: (db) => listDistrictsPage({ actor }, db) },
    {
      page: "districts ?q=<id prefix>",
      run: (db) => listDistrictsPage({ actor, search: middleDistrict.slice(0, -1) }, db),
    },
    { page: "districts ?q=<name part>", run: (db) => listDistrictsPage({ actor, search: "cedar hills" }, db) },
    { page: "districts ?cursor=<middle>", run: (db) => listDistrictsPage({ actor, after: middleDistrict }, db) },
    {
      page: "district page (500 keys, 10,000 events)",
      run: (db) => getDistrict({ actor, tenantId: BIG_DISTRICT }, db),
    },
    {
      page: "district page ?keys=rotated&cursor=<middle>",
      run: (db) =>
        getDistrict({ actor, tenantId: BIG_DISTRICT, inactiveStatus: "rotated", inactiveCursor: keysCursor }, db),
    },
    { page: "ledger", run: (db) => listLedger({ actor, filters: {} }, db) },
    {
      page: "ledger ?outcome=quarantined",
      run: (db) => listLedger({ actor, filters: { outcome: "quarantined" } }, db),
    },
    { page: "ledger ?type=key.revoked", run: (db) => listLedger({ actor, filters: { type: "key.revoked" } }, db) },
    {
      page: "ledger ?tenant=<big district>",
      run: (db) => listLedger({ actor, filters: { tenantId: BIG_DISTRICT } }, db),
    },
    {
      page: "ledger ?tenant=<district>",
      run: (db) => listLedger({ actor, filters: { tenantId: middleDistrict } }, db),
    },
    { page: "ledger ?event=<id>", run: (db) => listLedger({ actor, filters: { eventId } }, db) },
    {
      page: "ledger ?from&to (one hour)",
      run: (db) => listLedger({ actor, filters: { from: hourStart, to: hourEnd } }, db),
    },
    { page: "ledger event", run: (db) => getLedgerEvent({ actor, id: options.ledgerId }, db) },
    { page: "deliveries (last 24 h)", run: (db) => listDeliveries({ actor, since: day, until: now }, db) },
    {
      page: "deliveries ?event=<id>",
      run: (db) => listDeliveries({ actor, since: new Date(now.getTime() - 30 * 86_400_000), until: now, eventId }, db),
    },
    { page: "quarantine", run: (db) => listQuarantine({ actor }, db) },
    {
      page: "quarantine ?cursor=<a week back>",
      run: (db) =>
        listQuarantine({ actor, cursor: { at: new Date(now.getTime() - 7 * 86_400_000), id: 2n ** 62n } }, db),
    },
    { page: "retention", run: (db) => getRetentionView({ actor }, db) },
    { page: "audit", run: (db) => listAudit({ actor, filters: {} }, db) },
    { page: "audit ?action=key.revoke", run: (db) => listAudit({ actor, filters: { action: "key.revoke" } }, db) },
  ];
}
