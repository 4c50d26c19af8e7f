-- Issue 9: everything the app needs from PostgreSQL must also hold through a transaction-mode
-- pooler (PgBouncer), where a client has no session of its own.

-- The purge's lease (lib/retention/purge-lease.ts): a transaction-scoped advisory lock guards
-- taking it, the row proves who owns the run between its batches, and an expired lease (a
-- crashed replica) lets the next run take over.
ALTER TABLE "purge_runs" ADD COLUMN     "lease_until" TIMESTAMPTZ(3);

-- The ingest's one statement. Sets what used to be connection `options` (refused or silently
-- dropped by a pooler) for THIS transaction only, then claims and applies the event: no extra
-- round trip, and nothing leaks to the next client of the pooled server connection.
-- - lock_timeout: a lock wait longer than the ingest timeout fails inside PostgreSQL too, so a
--   request we answered 503 does not leave a statement queued behind a lock. Takes effect at once:
--   PostgreSQL reads it when a lock wait begins, and the waits are all in keyhook_apply_event.
-- - idle_in_transaction_session_timeout: a transaction abandoned by a hung process cannot hold
--   the claim's locks for ever (applies when this transaction next goes idle).
-- - READ COMMITTED (DESIGN.md invariant 1) cannot be chosen once the transaction has run a
--   statement; it is PostgreSQL's default, so we refuse loudly to run under anything else rather
--   than spend a round trip on SET TRANSACTION for every event.
CREATE FUNCTION keyhook_ingest(
  p_lock_timeout_ms int,
  p_tenant_id text,
  p_event_id text,
  p_type text,
  p_key_id text,
  p_previous_key_id text,
  p_sequence bigint,
  p_prefix text,
  p_scopes text[],
  p_occurred_at timestamptz,
  p_payload jsonb,
  p_received_at timestamptz
) RETURNS TABLE (outcome text, reason text, ledger_id bigint, first_outcome text, first_received_at timestamptz)
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'keyhook_ingest must run at READ COMMITTED, not %', current_setting('transaction_isolation')
      USING HINT = 'reset default_transaction_isolation for this database or role';
  END IF;
  PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', true),
          set_config('idle_in_transaction_session_timeout', '60s', true);
  RETURN QUERY SELECT * FROM keyhook_apply_event(p_tenant_id, p_event_id, p_type, p_key_id, p_previous_key_id,
    p_sequence, p_prefix, p_scopes, p_occurred_at, p_payload, p_received_at);
END;
$$;
