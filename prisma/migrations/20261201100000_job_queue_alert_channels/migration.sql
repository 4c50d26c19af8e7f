-- Issue 13, parts 3 and 4 (docs/decisions/0006, 0007). The job queue's own schema
-- (graphile_worker) is not here: graphile-worker installs and versions it, from the same
-- migration step (tooling/migrations/job-queue.ts).
-- (db:diff also proposed dropping the raw-SQL tenants_*_idx indexes of 20261201080000; kept.)

-- Alert notifications are outbox rows too; an alert of no district has no tenant.
ALTER TABLE "outbox" ALTER COLUMN "tenant_id" DROP NOT NULL;

-- AlterTable
ALTER TABLE "purge_runs" ADD COLUMN     "scheduled_for" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "alert_channels" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "smtp_url" TEXT,
    "from_address" TEXT,
    "secret" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT,
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "last_success_at" TIMESTAMPTZ(3),
    "last_failure_at" TIMESTAMPTZ(3),
    "last_error" TEXT,

    CONSTRAINT "alert_channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_notifications" (
    "alert_id" BIGINT NOT NULL,
    "channel_id" TEXT NOT NULL,
    "round" INTEGER NOT NULL DEFAULT 1,
    "last_sent_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "repeats" INTEGER NOT NULL DEFAULT 0,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_notifications_pkey" PRIMARY KEY ("alert_id","channel_id")
);

-- CreateIndex
CREATE INDEX "alert_notifications_channel_id_idx" ON "alert_notifications"("channel_id");

-- CreateIndex
CREATE INDEX "purge_runs_scheduled_for_idx" ON "purge_runs"("scheduled_for");
