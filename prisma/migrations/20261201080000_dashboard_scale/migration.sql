-- Dashboard pages at 10,000,000 claims, 10,000,000 receipts and 100,000 districts
-- (docs/decisions/dashboard-scale.md explains the choices).

-- Hourly counts of claims and receipts, folded in by a job behind a watermark (lib/rollups):
-- the Overview, Retention and metrics read these plus the few rows past the watermark instead
-- of counting millions of rows on every render. Ingest never writes here.
CREATE TABLE "claim_hourly_counts" (
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "rows" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "claim_hourly_counts_pkey" PRIMARY KEY ("hour", "outcome")
);

-- outcome_key is what the Overview chart shows: 'rejected' for a 4xx/5xx answer, else the outcome.
CREATE TABLE "receipt_hourly_counts" (
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "outcome_key" TEXT NOT NULL,
    "rows" BIGINT NOT NULL DEFAULT 0,
    "ok_rows" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "receipt_hourly_counts_pkey" PRIMARY KEY ("hour", "outcome_key")
);

-- One row per rolled-up table: every row with id <= folded_id is in the counts (and a purge of
-- such a row subtracts it); rows above it are counted live. pending_id/pending_at: the highest id
-- handed out when the job last looked; it is folded once no transaction older than that is open.
CREATE TABLE "rollup_watermarks" (
    "source" TEXT NOT NULL,
    "folded_id" BIGINT NOT NULL DEFAULT 0,
    "pending_id" BIGINT,
    "pending_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "rollup_watermarks_pkey" PRIMARY KEY ("source")
);
INSERT INTO "rollup_watermarks" ("source") VALUES ('processed_events'), ('receipts');

-- A ledger event's deliveries rejected before the tenant was known carry only the webhook id;
-- the ledger event page and the deliveries search look them up by it.
CREATE INDEX "receipts_webhook_id_idx" ON "receipts"("webhook_id");

-- A district admin's Overview counts their own receipts of today.
CREATE INDEX "receipts_tenant_id_received_at_idx" ON "receipts"("tenant_id", "received_at");

-- The districts list searches by name (substring, any case) among 100,000 districts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "tenants_name_trgm_idx" ON "tenants" USING gin ("name" gin_trgm_ops);
-- ... and by id prefix (text_pattern_ops makes LIKE 'prefix%' an index range whatever the collation).
CREATE INDEX "tenants_id_pattern_idx" ON "tenants" ("id" text_pattern_ops);
