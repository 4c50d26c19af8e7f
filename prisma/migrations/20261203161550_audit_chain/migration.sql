-- The audit log's hash chain (docs/audit.md, decision 0033): seq, content and link hashes on every
-- entry, the one head row the append trigger locks, the signed checkpoints, and what the alert
-- channels need for checkpoints and the audit stream. The trigger functions come in the next two
-- migrations (prisma/sql/keyhook_audit_chain_append.sql, keyhook_audit_log_is_append_only.sql), the
-- trigger after them.

-- AlterTable
ALTER TABLE "alert_channels" ADD COLUMN     "receives_checkpoints" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "stream_retry_at" TIMESTAMPTZ(3),
ADD COLUMN     "stream_sent_seq" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "audit_log" ADD COLUMN     "content_hash" BYTEA,
ADD COLUMN     "hash" BYTEA,
ADD COLUMN     "prev_hash" BYTEA,
ADD COLUMN     "seq" BIGINT;

-- CreateTable
CREATE TABLE "audit_chain_head" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "seq" BIGINT NOT NULL,
    "prev_hash" BYTEA,
    "hash" BYTEA,

    CONSTRAINT "audit_chain_head_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_checkpoints" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "reason" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "first_seq" BIGINT NOT NULL,
    "head" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "signature" TEXT NOT NULL,

    CONSTRAINT "audit_checkpoints_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_checkpoints_at_idx" ON "audit_checkpoints"("at");

-- CreateIndex
CREATE UNIQUE INDEX "audit_log_seq_key" ON "audit_log"("seq");

-- Entries written before the chain get their place in it now, in the order the Audit log page
-- shows them; their hashes are computed by the app (lib/core/audit/seal-audit-chain.ts: RFC 8785
-- needs JavaScript's rules), which the head row's NULL hash tells it to do.
ALTER TABLE "audit_log" DISABLE TRIGGER "audit_log_append_only";
UPDATE "audit_log" a SET "seq" = o.n
FROM (SELECT "id", row_number() OVER (ORDER BY "at", "id") AS n FROM "audit_log") o
WHERE a."id" = o."id";
ALTER TABLE "audit_log" ENABLE TRIGGER "audit_log_append_only";
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_seq_present" CHECK ("seq" IS NOT NULL);

ALTER TABLE "audit_chain_head" ADD CONSTRAINT "audit_chain_head_one_row" CHECK ("id");
INSERT INTO "audit_chain_head" ("id", "seq", "prev_hash", "hash")
SELECT true, count(*), NULL, CASE WHEN count(*) = 0 THEN decode(repeat('00', 32), 'hex') END FROM "audit_log";
