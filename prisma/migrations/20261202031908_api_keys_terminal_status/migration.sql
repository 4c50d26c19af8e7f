-- Rotated and revoked are terminal, enforced by the database like "one active key"
-- (api_keys_one_active_per_tenant): keyhook_key_status_is_terminal (prisma/sql/) refuses an
-- UPDATE that would revive a terminal key. Only a change of status reaches the function.
CREATE TRIGGER "api_keys_terminal_status" BEFORE UPDATE OF "status" ON "api_keys"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status")
  EXECUTE FUNCTION keyhook_key_status_is_terminal();
