import "server-only";
// One batch of the audit log's purge (docs/retention.md, docs/audit.md). The hash chain allows
// removing a prefix only: the batch walks entries in seq order and stops at the first one still
// inside the window (or not sealed yet), so the log that stays is the chain's tail. In the same
// transaction, through the path the append-only trigger permits (keyhook.audit_purge_before), it
// records the deletion as an audit entry and signs a checkpoint at the new start: whoever verifies
// the log afterwards starts from that signed boundary.
import { auditRowOf } from "../../core/audit/audit-row";
import { signAuditCheckpoint } from "../../core/audit/sign-checkpoint";
import type { PurgeConnection } from "./purge-connection";

export type AuditPurgeContext = { now: Date; windowDays: number; trigger: string };

type Summary = {
  rows: number;
  scanned: number;
  from_seq: string | null;
  to_seq: string | null;
  last_at: Date | null;
  from_id: string | null;
  to_id: string | null;
};

export async function purgeAuditBatch(
  connection: PurgeConnection,
  options: { before: Date; afterSeq: string | null; limit: number; context: AuditPurgeContext },
): Promise<{ rows: number; scanned: number; last: { at: Date; id: string } | null }> {
  await connection.query("SELECT set_config('keyhook.audit_purge_before', $1::timestamptz::text, true)", [
    options.before,
  ]);
  const result = await connection.query<Summary>(
    `WITH walk AS (
       SELECT id, seq, at, hash FROM audit_log WHERE seq > COALESCE($1::bigint, 0) ORDER BY seq LIMIT $3
     ), stop AS (
       SELECT min(seq) AS seq FROM walk WHERE at >= $2::timestamptz OR hash IS NULL
     ), batch AS (
       SELECT walk.id, walk.seq, walk.at FROM walk, stop WHERE stop.seq IS NULL OR walk.seq < stop.seq
     ), done AS (
       DELETE FROM audit_log d USING batch WHERE d.id = batch.id RETURNING d.id, d.seq
     )
     SELECT (SELECT count(*) FROM done)::int AS rows, (SELECT count(*) FROM batch)::int AS scanned,
            (SELECT min(seq) FROM done)::text AS from_seq, (SELECT max(seq) FROM done)::text AS to_seq,
            (SELECT min(id) FROM done)::text AS from_id, (SELECT max(id) FROM done)::text AS to_id,
            (SELECT at FROM batch ORDER BY seq DESC LIMIT 1) AS last_at`,
    [options.afterSeq, options.before, options.limit],
  );
  const summary = result.rows[0]!;
  if (summary.rows > 0) {
    const row = auditRowOf({
      actor: { id: null, label: `retention purge (${options.context.trigger})` },
      action: "audit.purge",
      target: "audit_log",
      outcome: "ok",
      details: {
        deleted: summary.rows,
        from_id: summary.from_id,
        to_id: summary.to_id,
        from_seq: summary.from_seq,
        to_seq: summary.to_seq,
        before: options.before.toISOString(),
        window_days: options.context.windowDays,
      },
    });
    await connection.query(
      `INSERT INTO audit_log (at, actor_id, actor, action, tenant_id, target, outcome, details, content_hash)
       VALUES ($1::timestamptz, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)`,
      [
        options.context.now,
        row.actor_id,
        row.actor,
        row.action,
        row.tenant_id,
        row.target,
        row.outcome,
        JSON.stringify(row.details),
        Buffer.from(row.contentHash),
      ],
    );
    await signAuditCheckpoint({ reason: "purge", now: new Date() }, async (sql, values) => {
      const answer = await connection.query(sql, values);
      return answer.rows as never[];
    });
  }
  return {
    rows: summary.rows,
    scanned: summary.scanned,
    last: summary.to_seq && summary.last_at ? { at: summary.last_at, id: summary.to_seq } : null,
  };
}
