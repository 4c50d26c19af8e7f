import "server-only";
// Quarantined events become alerts deduplicated by their cause: one alert per (district, key),
// counting the events. 1,000 quarantined events of one misrouted key are ONE alert, count 1,000.
//
// Where the count is incremented: here, in a sweep behind a watermark, never in the ingest path.
// Counting in ingest would be one more statement inside keyhook_ingest (no extra round trip), but
// every event of a storm would then update the SAME alert row, so a storm's ingest transactions
// would queue on that row's lock — the storm is exactly when ingest must stay fast. The sweep
// reads the new claims by primary key range, so its cost is the new rows only.
//
// The watermark is two-step, as in lib/operations/rollups/fold-rollups.ts: claim ids commit out of order,
// so a pass folds up to the highest id handed out at the PREVIOUS pass, once no transaction that
// started before that pass is still open. Hence an event is counted one or two sweeps after it
// commits (ALERT_SWEEP_INTERVAL_MS). The fold and the watermark move commit together.
import type { Db } from "../../core/db/client";
import { EVERY_DISTRICT, tenantSql } from "../../core/tenancy/district-scope";
import { writersStillOpen } from "../../core/db/writers-still-open";
import { raiseAlert, resolveAlerts } from "./upsert-alert";

const QUARANTINE_KIND = "quarantine";
const SOURCE = "quarantine";

const quarantineSubject = (tenantId: string, keyId: string | null) => `quarantine/${tenantId}/${keyId ?? "(no key)"}`;

type Mark = { folded_id: bigint; pending_id: bigint | null; pending_at: Date | null };
type Group = {
  tenant_id: string;
  key_id: string | null;
  events: number;
  first_at: Date;
  last_at: Date;
  last_event_id: string;
  last_reason: string | null;
};

export async function sweepQuarantine(
  options: { now: Date },
  db: Db,
): Promise<{ raised: number; resolved: number; waiting: boolean }> {
  let waiting = false;
  const raised = await db.$transaction(async (tx) => {
    await tx.$executeRaw`INSERT INTO alert_watermarks (source) VALUES (${SOURCE}) ON CONFLICT DO NOTHING`;
    const [mark] = await tx.$queryRaw<Mark[]>`
      SELECT folded_id, pending_id, pending_at FROM alert_watermarks WHERE source = ${SOURCE} FOR UPDATE`;
    let foldedId = mark!.folded_id;
    let groups = 0;
    if (mark!.pending_id !== null && mark!.pending_at !== null && mark!.pending_id > mark!.folded_id) {
      if (await writersStillOpen(tx, mark!.pending_at)) {
        // An older transaction may still commit a lower id: fold next time.
        waiting = true;
        return 0;
      }
      const rows = await tx.$queryRaw<Group[]>`
        SELECT tenant_id, key_id, count(*)::int AS events, min(received_at) AS first_at, max(received_at) AS last_at,
               (array_agg(event_id ORDER BY id DESC))[1] AS last_event_id,
               (array_agg(reason ORDER BY id DESC))[1] AS last_reason
        FROM processed_events
        WHERE id > ${mark!.folded_id} AND id <= ${mark!.pending_id} AND outcome = 'quarantined'
          AND resolved_at IS NULL AND ${tenantSql(EVERY_DISTRICT)}
        GROUP BY tenant_id, key_id`;
      for (const group of rows) {
        await raiseAlert(
          {
            kind: QUARANTINE_KIND,
            subject: quarantineSubject(group.tenant_id, group.key_id),
            tenantId: group.tenant_id,
            now: group.last_at > options.now ? group.last_at : options.now,
            firstSeenAt: group.first_at,
            occurrences: group.events,
            // New events of the cause: a change, which re-opens even an alert a person resolved.
            changed: true,
            details: {
              tenant_id: group.tenant_id,
              key_id: group.key_id,
              last_event_id: group.last_event_id,
              last_reason: group.last_reason,
              fix: "look at the events in Quarantine: a misrouted or contradictory event never changes a key by itself",
            },
          },
          tx,
        );
      }
      groups = rows.length;
      foldedId = mark!.pending_id;
    }
    // The sequence first, the clock second (see fold-rollups.ts).
    await tx.$executeRaw`
      UPDATE alert_watermarks SET folded_id = ${foldedId},
        pending_id = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM processed_events_id_seq),
        pending_at = clock_timestamp(), updated_at = now()
      WHERE source = ${SOURCE}`;
    return groups;
  });

  // Every event of the cause resolved by a human (Quarantine page): the alert resolves too (a
  // person's decision on it is spent).
  const cleared = await db.$queryRaw<{ subject: string }[]>`
    SELECT a.subject FROM alerts a
    WHERE a.kind = ${QUARANTINE_KIND} AND (a.state <> 'resolved' OR a.condition_cleared_at IS NULL) AND NOT EXISTS (
      SELECT 1 FROM processed_events p
      WHERE p.tenant_id = a.tenant_id AND p.outcome = 'quarantined' AND p.resolved_at IS NULL
        AND p.key_id IS NOT DISTINCT FROM (a.details->>'key_id'))
    LIMIT 10000`;
  const resolved = await resolveAlerts(
    { kind: QUARANTINE_KIND, subjects: cleared.map((c) => c.subject), now: options.now },
    db,
  );
  return { raised, resolved, waiting };
}
