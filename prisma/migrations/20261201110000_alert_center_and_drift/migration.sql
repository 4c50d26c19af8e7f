-- The alert center and the drift check (issue 13, parts 1 and 2): who acted on an alert, the
-- drift runs, the alert sweep's watermarks, and the index the "provider unreachable" sweep reads.
-- (db:diff also proposed dropping the raw-SQL tenant search indexes of 20261201080000: kept.)

-- AlterTable
ALTER TABLE "alerts" ADD COLUMN     "acknowledged_at" TIMESTAMPTZ(3),
ADD COLUMN     "acknowledged_by" TEXT,
ADD COLUMN     "note" TEXT,
ADD COLUMN     "resolution" TEXT,
ADD COLUMN     "resolved_at" TIMESTAMPTZ(3),
ADD COLUMN     "resolved_by" TEXT;

-- CreateTable
CREATE TABLE "drift_runs" (
    "id" BIGSERIAL NOT NULL,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "requested_by" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'requested',
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "lease_until" TIMESTAMPTZ(3),
    "tenant_id" TEXT,
    "cursor" TEXT,
    "tenants_done" INTEGER NOT NULL DEFAULT 0,
    "pages" INTEGER NOT NULL DEFAULT 0,
    "keys_compared" INTEGER NOT NULL DEFAULT 0,
    "differences" INTEGER NOT NULL DEFAULT 0,
    "live_seen" JSONB NOT NULL DEFAULT '[]',
    "error" TEXT,

    CONSTRAINT "drift_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_watermarks" (
    "source" TEXT NOT NULL,
    "folded_id" BIGINT NOT NULL DEFAULT 0,
    "pending_id" BIGINT,
    "pending_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_watermarks_pkey" PRIMARY KEY ("source")
);

-- CreateIndex
CREATE INDEX "drift_runs_status_requested_at_idx" ON "drift_runs"("status", "requested_at");

-- CreateIndex
CREATE INDEX "alerts_tenant_id_state_last_seen_at_idx" ON "alerts"("tenant_id", "state", "last_seen_at");

-- CreateIndex
CREATE INDEX "outbox_attempts_at_idx" ON "outbox_attempts"("at");
