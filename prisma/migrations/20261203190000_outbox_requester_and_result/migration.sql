-- Who asked for a provider call, and the provider's answer as facts: the audit log records the
-- outcome the provider gave, and a district's page says what became of each request.
ALTER TABLE "outbox" ADD COLUMN     "requested_by" TEXT,
ADD COLUMN     "requested_by_id" TEXT,
ADD COLUMN     "result" JSONB;

-- A district's provider calls, newest first.
CREATE INDEX "outbox_tenant_id_created_at_idx" ON "outbox"("tenant_id", "created_at");
