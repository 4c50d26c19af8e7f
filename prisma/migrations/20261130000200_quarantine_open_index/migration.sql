-- The open quarantine (quarantined, not yet resolved) is counted on every Overview render and
-- every metrics scrape, and listed on the Quarantine page. Without this index each of those reads
-- every quarantined row the ledger ever kept; with it, only the few that still need a human.
CREATE INDEX "processed_events_quarantine_open" ON "processed_events" ("tenant_id", "received_at")
  WHERE "outcome" = 'quarantined' AND "resolved_at" IS NULL;
