-- keyhook_ingest: the ingest's one statement (lib/core/ingest/apply-key-event.ts).
-- THE source of this function. Edit it here, then `npm run db:function -- keyhook_ingest`
-- writes a migration with this text; test/core/db/sql-functions.integration.test.ts fails while the
-- migrated database runs another definition.
--
-- It claims and applies the event (keyhook_apply_event) and writes the
-- delivery's receipt, so both commit or vanish together. The receipt's id comes back: when the
-- COMMIT outlives the caller's deadline (a synchronous standby that does not confirm) the sender
-- is answered 503, and the edge writes that answer onto this very receipt once the commit lands
-- (lib/operations/rollups/record-late-answer.ts).
--
-- Why everything is in here rather than in the statement the app sends: through a pooler the app
-- sends unnamed statements (a named one would land on another server connection), and PostgreSQL
-- parses and plans an unnamed statement on every execution. A plpgsql function keeps the plans of
-- its own statements for the life of the server connection, which a pooler keeps open, so the
-- statement the app sends is just this call (bench/pooler.ts measures it).
--
-- It also sets what used to be connection `options` (refused or silently dropped by a pooler) for
-- THIS transaction only: no extra round trip, nothing left for the next client of the connection.
-- - lock_timeout: a lock wait longer than the ingest timeout fails inside PostgreSQL too, so a
--   request we answered 503 does not leave a statement queued behind a lock. Takes effect at once:
--   PostgreSQL reads it when a lock wait begins, and the waits are all in keyhook_apply_event.
-- - idle_in_transaction_session_timeout: a transaction abandoned by a hung process cannot hold
--   the claim's locks for ever (applies when this transaction next goes idle).
-- - READ COMMITTED (docs/design.md, invariant 1) cannot be chosen once the transaction has run a
--   statement; it is PostgreSQL's default, so we refuse loudly to run under anything else rather
--   than spend a round trip on SET TRANSACTION for every event.
CREATE OR REPLACE FUNCTION keyhook_ingest(
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
  p_received_at timestamptz,
  p_webhook_id text,
  p_signature_verdict text,
  p_handler_micros int,
  p_body_bytes int,
  p_source text,
  -- Signature telemetry: which secret verified the delivery, and the clock skew.
  p_secret_fingerprint text,
  p_clock_skew_ms int,
  -- PROVIDER_SEQUENCES_DENSE: track sequence gaps (keyhook_note_sequence).
  p_track_gaps boolean
) RETURNS TABLE (outcome text, reason text, first_outcome text, receipt_id bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_applied record;
  v_receipt_id bigint;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'keyhook_ingest must run at READ COMMITTED, not %', current_setting('transaction_isolation')
      USING HINT = 'reset default_transaction_isolation for this database or role';
  END IF;
  PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', true),
          set_config('idle_in_transaction_session_timeout', '60s', true);
  SELECT * INTO v_applied FROM keyhook_apply_event(p_tenant_id, p_event_id, p_type, p_key_id, p_previous_key_id,
    p_sequence, p_prefix, p_scopes, p_occurred_at, p_payload, p_received_at, p_track_gaps);
  INSERT INTO receipts (received_at, webhook_id, tenant_id, event_id, signature_verdict, status, outcome,
                        latency_micros, body_bytes, source, secret_fingerprint, clock_skew_ms)
  VALUES (p_received_at, p_webhook_id, p_tenant_id, p_event_id, p_signature_verdict, 200, v_applied.outcome,
          p_handler_micros + (extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000000)::int,
          p_body_bytes, p_source, p_secret_fingerprint, p_clock_skew_ms)
  RETURNING id INTO v_receipt_id;
  outcome := v_applied.outcome;
  reason := v_applied.reason;
  first_outcome := v_applied.first_outcome;
  receipt_id := v_receipt_id;
  RETURN NEXT;
END;
$$;
