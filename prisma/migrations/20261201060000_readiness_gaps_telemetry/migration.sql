-- AlterTable
ALTER TABLE "receipts" ADD COLUMN     "clock_skew_ms" INTEGER,
ADD COLUMN     "secret_fingerprint" TEXT;

-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "last_seen_sequence" BIGINT;

-- CreateTable
CREATE TABLE "sequence_gaps" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "from_seq" BIGINT NOT NULL,
    "to_seq" BIGINT NOT NULL,
    "first_noticed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closed_at" TIMESTAMPTZ(3),

    CONSTRAINT "sequence_gaps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alerts" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "tenant_id" TEXT,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "count" INTEGER NOT NULL DEFAULT 1,
    "state" TEXT NOT NULL DEFAULT 'open',
    "details" JSONB,

    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "readiness_runs" (
    "id" BIGSERIAL NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "actor" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "passed" BOOLEAN NOT NULL DEFAULT false,
    "steps" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "readiness_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sequence_gaps_tenant_id_from_seq_idx" ON "sequence_gaps"("tenant_id", "from_seq");

-- CreateIndex
CREATE INDEX "sequence_gaps_closed_at_first_noticed_at_idx" ON "sequence_gaps"("closed_at", "first_noticed_at");

-- CreateIndex
CREATE INDEX "alerts_state_last_seen_at_idx" ON "alerts"("state", "last_seen_at");

-- CreateIndex
CREATE UNIQUE INDEX "alerts_kind_subject_key" ON "alerts"("kind", "subject");

-- CreateIndex
CREATE INDEX "readiness_runs_started_at_idx" ON "readiness_runs"("started_at");

-- Hand-written: what the schema cannot say.
ALTER TABLE "sequence_gaps" ADD CONSTRAINT "sequence_gaps_range_check" CHECK ("from_seq" >= 1 AND "from_seq" <= "to_seq");
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_state_check" CHECK ("state" IN ('open', 'acknowledged', 'resolved'));

-- Districts that already have events start gap tracking from the highest sequence we hold, so
-- deploying this never reports the past as missing.
UPDATE "tenants" t SET "last_seen_sequence" = s.max_seq
FROM (SELECT tenant_id, max(sequence) AS max_seq FROM processed_events GROUP BY tenant_id) s
WHERE s.tenant_id = t.id;
