-- keyhook_audit_log_is_append_only: the trigger function that keeps audit_log append-only
-- (docs/design.md, invariant 5). THE source of this function; see keyhook_apply_event.sql for how
-- a change reaches a migration. The trigger itself (audit_log_append_only) is in the migration.
--
-- UPDATE is always refused but for one path: sealing (lib/core/audit/seal-audit-chain.ts) fills
-- the hashes of entries written before the hash chain existed, once, in a transaction that has set
-- keyhook.audit_sealing; it may set a hash that is NULL and change nothing else (docs/audit.md).
-- DELETE is refused too, except for the one path the retention purge takes
-- (lib/operations/retention/audit-purge.ts, docs/retention.md): a transaction that has set
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
  ELSIF TG_OP = 'UPDATE' AND current_setting('keyhook.audit_sealing', true) = 'on'
    AND OLD.hash IS NULL AND NEW.hash IS NOT NULL AND NEW.prev_hash IS NOT NULL
    AND (OLD.content_hash IS NULL OR NEW.content_hash = OLD.content_hash)
    AND (NEW.id, NEW.seq, NEW.at, NEW.actor_id, NEW.actor, NEW.action, NEW.tenant_id, NEW.target, NEW.outcome)
      IS NOT DISTINCT FROM (OLD.id, OLD.seq, OLD.at, OLD.actor_id, OLD.actor, OLD.action, OLD.tenant_id, OLD.target, OLD.outcome)
    AND NEW.details IS NOT DISTINCT FROM OLD.details THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP;
END;
$$;
