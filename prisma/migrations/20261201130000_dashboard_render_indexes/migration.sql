-- Dashboard pages paged instead of rendered whole (issue 15; docs/decisions/dashboard-scale.md).

-- The Quarantine page lists the open quarantine newest first, one page at a time, for staff (no
-- district): this walks only the open items in that order. The older partial index leads with the
-- district (a district admin's page and the counts) and cannot give the all-districts order.
CREATE INDEX "processed_events_quarantine_open_recent" ON "processed_events" ("received_at" DESC, "id" DESC)
  WHERE "outcome" = 'quarantined' AND "resolved_at" IS NULL;
