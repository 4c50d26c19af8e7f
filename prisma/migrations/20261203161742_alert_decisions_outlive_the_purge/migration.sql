-- A person's decision on an alert lasts as long as the condition it was about
-- (docs/decisions/0036-alert-decisions-outlive-the-purge.md).

-- When the condition was last found gone: set with resolved_at when a sweep clears an alert, later
-- for one a person resolved (the sweep or check that watches its kind finds the condition gone).
-- Null while the condition holds: a person's decision on it is kept, whatever its age.
ALTER TABLE "alerts" ADD COLUMN "condition_cleared_at" TIMESTAMPTZ(3);

-- Alerts a sweep cleared: their condition went when they were resolved. Those a person resolved
-- stay null until the sweep or check of their kind next finds the condition gone.
UPDATE "alerts" SET "condition_cleared_at" = "resolved_at"
WHERE "state" = 'resolved' AND "resolution" = 'condition_cleared';

-- The purge deletes a resolved alert past ALERT_RETENTION_DAYS from when its condition went; one
-- whose condition still holds is a person's decision and stays. The index holds exactly the rows
-- the purge may delete (history-purges.ts).
DROP INDEX "alerts_resolved_purge";
CREATE INDEX "alerts_cleared_purge" ON "alerts" ("condition_cleared_at", "id")
  WHERE "state" = 'resolved' AND "condition_cleared_at" IS NOT NULL;
