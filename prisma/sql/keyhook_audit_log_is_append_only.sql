-- keyhook_audit_log_is_append_only: the trigger function that keeps audit_log append-only
-- (docs/design.md, invariant 5). THE source of this function; see keyhook_apply_event.sql for how
-- a change reaches a migration. The trigger itself (audit_log_append_only) is in the migration.
CREATE OR REPLACE FUNCTION keyhook_audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP;
END;
$$;
