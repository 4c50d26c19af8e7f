-- keyhook_audit_log_is_append_only: the trigger function that keeps audit_log append-only
-- (docs/design.md, invariant 5). THE source of this function; see keyhook_apply_event.sql for how
-- a change reaches a migration. The trigger itself (audit_log_append_only) is in the migration.
--
-- UPDATE is always refused. DELETE is refused too, except for the one path the retention purge
-- takes (lib/retention/purge-batches.ts, docs/retention.md): a transaction that has set
-- keyhook.audit_purge_before (transaction-local, so nothing stays on a pooled connection) may
-- delete the entries older than that instant, and only those. The same transaction writes the
-- audit entry that records the deletion.
CREATE OR REPLACE FUNCTION keyhook_audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_before timestamptz;
BEGIN
  IF TG_OP = 'DELETE' THEN
    v_before := nullif(current_setting('keyhook.audit_purge_before', true), '')::timestamptz;
    IF v_before IS NOT NULL AND OLD.at < v_before THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP;
END;
$$;
