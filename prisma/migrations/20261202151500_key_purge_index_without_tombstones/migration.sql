-- The key-history purge's index holds only the rows the purge may delete one day. A tombstone (a
-- key we only ever saw deactivated) is kept for good; in the index, a few of them spread over the
-- old pages kept every one of those pages alive, and the index grew with time while the table did not.
DROP INDEX "api_keys_deactivated_purge";
CREATE INDEX "api_keys_deactivated_purge" ON "api_keys" ((GREATEST("revoked_at", "rotated_at")), "id")
  WHERE "status" IN ('revoked', 'rotated') AND "activated_seq" IS NOT NULL;
