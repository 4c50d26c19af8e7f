-- Every table that grows with traffic or time is purged by the nightly purge (docs/retention.md).

-- What the purge deleted from each table beyond claims, receipts and payloads, by table name.
ALTER TABLE "purge_runs" ADD COLUMN     "rows_deleted" JSONB NOT NULL DEFAULT '{}';

-- Each purge walks its table oldest first from where its previous batch stopped (keyset on the
-- row's age and id), through only the rows it may delete: the partial indexes below hold exactly
-- those, so a batch never reads past the rows that are kept (pending or failed outbox rows, open
-- alerts and gaps, live keys).
CREATE INDEX "outbox_sent_purge" ON "outbox" ("sent_at", "id") WHERE "status" = 'sent';
CREATE INDEX "alerts_resolved_purge" ON "alerts" ("resolved_at", "id") WHERE "state" = 'resolved';
CREATE INDEX "sequence_gaps_closed_purge" ON "sequence_gaps" ("closed_at", "id") WHERE "closed_at" IS NOT NULL;
CREATE INDEX "drift_runs_requested_at_id" ON "drift_runs" ("requested_at", "id");
CREATE INDEX "api_keys_deactivated_purge" ON "api_keys" ((GREATEST("revoked_at", "rotated_at")), "id")
  WHERE "status" IN ('revoked', 'rotated');
