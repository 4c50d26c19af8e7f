-- Failed outbox rows are bounded too (docs/retention.md, docs/decisions/0036): a failed
-- notification retires OUTBOX_RETENTION_DAYS after it was given up, a failed provider call that
-- long after a person decided on it (resolved its outbox_failed alert).
ALTER TABLE "outbox" ADD COLUMN "failed_at" TIMESTAMPTZ(3),
ADD COLUMN "settled_at" TIMESTAMPTZ(3);

-- Rows already failed: given up at their last attempt.
UPDATE "outbox" o SET "failed_at" = COALESCE(
  (SELECT max(a."at") FROM "outbox_attempts" a WHERE a."outbox_id" = o."id"), o."created_at")
WHERE o."status" = 'failed';

-- Exactly the failed rows the purge may delete, by when they retire (history-purges.ts).
CREATE INDEX "outbox_failed_purge" ON "outbox" ((COALESCE("settled_at", "failed_at")), "id")
  WHERE "status" = 'failed' AND ("settled_at" IS NOT NULL OR "kind" LIKE 'notify.%');
