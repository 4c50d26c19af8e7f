-- Superseded keys (a possibly-live credential nobody revoked) are few and listed and counted on
-- every Quarantine and Overview render; without this each read scanned every key.
CREATE INDEX "api_keys_superseded_idx" ON "api_keys" ("superseded_at" DESC, "id") WHERE "status" = 'superseded';
