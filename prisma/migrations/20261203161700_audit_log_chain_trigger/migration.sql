-- Every new audit entry is bound into the hash chain by the statement that writes it
-- (prisma/sql/keyhook_audit_chain_append.sql, docs/audit.md).
CREATE TRIGGER "audit_log_chain" BEFORE INSERT ON "audit_log"
  FOR EACH ROW EXECUTE FUNCTION keyhook_audit_chain_append();
