-- Invariants the database enforces itself (docs/design.md), and the claim-and-apply function.

-- Invariant 3: at most one active key per tenant, whatever the code does.
CREATE UNIQUE INDEX "api_keys_one_active_per_tenant" ON "api_keys" ("tenant_id") WHERE "status" = 'active';

ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_status_check"
  CHECK ("status" IN ('active', 'superseded', 'rotated', 'revoked'));
ALTER TABLE "processed_events" ADD CONSTRAINT "processed_events_outcome_check"
  CHECK ("outcome" IN ('pending', 'applied', 'stale', 'quarantined', 'ignored'));

-- Invariant 5: the audit log is append-only.
CREATE FUNCTION keyhook_audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP;
END;
$$;
CREATE TRIGGER "audit_log_append_only" BEFORE UPDATE OR DELETE ON "audit_log"
  FOR EACH ROW EXECUTE FUNCTION keyhook_audit_log_is_append_only();

-- Claim an event and apply its credential change (docs/design.md, invariants 1, 3 and 4).
--
-- Why a function: the claim, the tenant lock, the reads and the writes must be one atomic unit,
-- and every round trip between Node and PostgreSQL costs more CPU than the work itself. The
-- caller runs it inside ONE Prisma interactive transaction at READ COMMITTED; in plpgsql every
-- statement takes a fresh snapshot, so the key rows are read AFTER the tenant lock is held and
-- always reflect the last committed change. The reference model of these rules, used by the
-- property-based tests, is test/core/keys/lifecycle-model.ts.
CREATE FUNCTION keyhook_apply_event(
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
DECLARE
  v_started timestamptz := clock_timestamp();
  v_ledger_id bigint;
  v_hwm bigint;
  v_outcome text := 'applied';
  v_reason text;
  v_key api_keys%ROWTYPE;
  v_key_found boolean := false;
  v_prev api_keys%ROWTYPE;
  v_prev_found boolean := false;
  v_known boolean := p_type IN ('key.created', 'key.rotated', 'key.revoked');
  v_active_key text;
BEGIN
  -- 1. The claim. A concurrent duplicate waits here on the unique index until the first
  --    transaction commits (then does nothing) or rolls back (then claims it itself).
  INSERT INTO processed_events AS pe
    (tenant_id, event_id, type, key_id, previous_key_id, sequence, outcome, payload, occurred_at, received_at)
  VALUES
    (p_tenant_id, p_event_id, p_type, p_key_id, p_previous_key_id, p_sequence,
     CASE WHEN v_known THEN 'pending' ELSE 'ignored' END, p_payload, p_occurred_at, p_received_at)
  ON CONFLICT (tenant_id, event_id) DO NOTHING
  RETURNING pe.id INTO v_ledger_id;

  IF v_ledger_id IS NULL THEN
    RETURN QUERY
      SELECT 'duplicate'::text, NULL::text, pe.id, pe.outcome, pe.received_at
      FROM processed_events pe WHERE pe.tenant_id = p_tenant_id AND pe.event_id = p_event_id;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'duplicate'::text, NULL::text, NULL::bigint, NULL::text, NULL::timestamptz;
    END IF;
    RETURN;
  END IF;

  IF NOT v_known THEN
    UPDATE processed_events SET reason = 'unknown event type', processed_at = clock_timestamp(),
      processing_micros = (extract(epoch FROM clock_timestamp() - v_started) * 1000000)::int
    WHERE id = v_ledger_id;
    RETURN QUERY SELECT 'ignored'::text, 'unknown event type'::text, v_ledger_id, NULL::text, NULL::timestamptz;
    RETURN;
  END IF;

  -- 2. Serialise every change of this tenant's keys behind its row lock. The provider is the
  --    source of truth for tenants, so the first authentic event of a district creates it.
  INSERT INTO tenants AS t (id) VALUES (p_tenant_id)
  ON CONFLICT (id) DO UPDATE SET updated_at = now()
  RETURNING t.high_water_mark INTO v_hwm;

  -- 3. Read the keys the event names. Looked up by id alone on purpose: a key id that exists
  --    under another tenant is a misrouted event, and must be quarantined, never applied.
  SELECT * INTO v_key FROM api_keys k WHERE k.id = p_key_id;
  v_key_found := FOUND;
  IF p_previous_key_id IS NOT NULL THEN
    SELECT * INTO v_prev FROM api_keys k WHERE k.id = p_previous_key_id;
    v_prev_found := FOUND;
  END IF;

  IF v_key_found AND v_key.tenant_id <> p_tenant_id THEN
    v_outcome := 'quarantined';
    v_reason := format('key %s belongs to another tenant', p_key_id);
  ELSIF v_prev_found AND v_prev.tenant_id <> p_tenant_id THEN
    v_outcome := 'quarantined';
    v_reason := format('previous key %s belongs to another tenant', p_previous_key_id);
  ELSIF p_type = 'key.rotated' AND p_previous_key_id = p_key_id THEN
    v_outcome := 'quarantined';
    v_reason := 'a rotation names the same key as previous and new';
  ELSIF p_type <> 'key.revoked' AND v_key_found AND v_key.prefix IS NOT NULL AND p_prefix IS NOT NULL
        AND v_key.prefix <> p_prefix THEN
    v_outcome := 'quarantined';
    v_reason := format('prefix %s contradicts the prefix %s we hold for key %s', p_prefix, v_key.prefix, p_key_id);
  END IF;

  IF v_outcome = 'quarantined' THEN
    UPDATE processed_events SET outcome = v_outcome, reason = v_reason, processed_at = clock_timestamp(),
      processing_micros = (extract(epoch FROM clock_timestamp() - v_started) * 1000000)::int
    WHERE id = v_ledger_id;
    RETURN QUERY SELECT v_outcome, v_reason, v_ledger_id, NULL::text, NULL::timestamptz;
    RETURN;
  END IF;

  -- 4. Deactivations always apply at once and are terminal. An unknown key gets a tombstone so a
  --    late activation can never bring it to life. revoked outranks rotated.
  IF p_type = 'key.revoked' THEN
    IF v_key_found THEN
      UPDATE api_keys SET status = 'revoked',
        revoked_at = COALESCE(revoked_at, p_occurred_at),
        deactivated_seq = GREATEST(deactivated_seq, p_sequence),
        revoke_confirmed_at = COALESCE(revoke_confirmed_at, now()),
        last_event_id = p_event_id, updated_at = now()
      WHERE id = p_key_id;
      IF v_key.status = 'revoked' THEN v_reason := 'key was already revoked'; END IF;
    ELSE
      INSERT INTO api_keys (id, tenant_id, status, deactivated_seq, revoked_at, revoke_confirmed_at, last_event_id)
      VALUES (p_key_id, p_tenant_id, 'revoked', p_sequence, p_occurred_at, now(), p_event_id);
      v_reason := 'unknown key: tombstone recorded';
    END IF;
  ELSIF p_type = 'key.rotated' THEN
    IF v_prev_found THEN
      UPDATE api_keys SET status = CASE WHEN status = 'revoked' THEN 'revoked' ELSE 'rotated' END,
        rotated_at = COALESCE(rotated_at, p_occurred_at),
        deactivated_seq = GREATEST(deactivated_seq, p_sequence),
        last_event_id = p_event_id, updated_at = now()
      WHERE id = p_previous_key_id;
    ELSE
      INSERT INTO api_keys (id, tenant_id, status, deactivated_seq, rotated_at, last_event_id)
      VALUES (p_previous_key_id, p_tenant_id, 'rotated', p_sequence, p_occurred_at, p_event_id);
    END IF;
  END IF;

  -- 5. Activations (created, and the new key of a rotation) obey the order.
  IF p_type IN ('key.created', 'key.rotated') THEN
    IF p_sequence <= v_hwm THEN
      -- An older activation (or an issue re-sent under a new event id): it activates nothing.
      -- A key we have never seen would, in order, have been superseded by the newer one: record
      -- it as such so a human sees a credential the provider issued and nobody revoked.
      v_outcome := 'stale';
      v_reason := format('sequence %s is not above the high-water mark %s', p_sequence, v_hwm);
      IF NOT v_key_found THEN
        SELECT k.id INTO v_active_key FROM api_keys k WHERE k.tenant_id = p_tenant_id AND k.status = 'active';
        INSERT INTO api_keys (id, tenant_id, status, prefix, scopes, activated_seq, activated_at,
                              superseded_at, superseded_by_key_id, last_event_id)
        VALUES (p_key_id, p_tenant_id, 'superseded', p_prefix, COALESCE(p_scopes, '{}'), p_sequence, p_occurred_at,
                now(), v_active_key, p_event_id);
      END IF;
    ELSE
      UPDATE tenants SET high_water_mark = p_sequence WHERE id = p_tenant_id;
      -- The newer sequence wins: a key still active is superseded, and stays flagged until its
      -- own deactivation arrives.
      UPDATE api_keys SET status = 'superseded', superseded_at = now(), superseded_by_key_id = p_key_id, updated_at = now()
      WHERE tenant_id = p_tenant_id AND status = 'active' AND id <> p_key_id;
      IF NOT v_key_found THEN
        INSERT INTO api_keys (id, tenant_id, status, prefix, scopes, activated_seq, activated_at, last_event_id)
        VALUES (p_key_id, p_tenant_id, 'active', p_prefix, COALESCE(p_scopes, '{}'), p_sequence, p_occurred_at, p_event_id);
      ELSIF v_key.status IN ('revoked', 'rotated') THEN
        -- Its deactivation arrived first: the key keeps its terminal status; we only learn its facts.
        UPDATE api_keys SET prefix = COALESCE(prefix, p_prefix),
          scopes = CASE WHEN cardinality(scopes) = 0 THEN COALESCE(p_scopes, '{}') ELSE scopes END,
          activated_seq = COALESCE(activated_seq, p_sequence), activated_at = COALESCE(activated_at, p_occurred_at),
          updated_at = now()
        WHERE id = p_key_id;
        v_reason := format('key %s was already %s; it stays deactivated', p_key_id, v_key.status);
      ELSE
        -- The status guard is re-checked on the row version this UPDATE finally locks: a revoke
        -- from the dashboard (which does not take the tenant lock) may have committed since the
        -- read above, and a revoked key must never become active again.
        UPDATE api_keys SET status = 'active', prefix = COALESCE(p_prefix, prefix),
          scopes = COALESCE(p_scopes, scopes), activated_seq = p_sequence,
          activated_at = COALESCE(activated_at, p_occurred_at),
          superseded_at = NULL, superseded_by_key_id = NULL, last_event_id = p_event_id, updated_at = now()
        WHERE id = p_key_id AND status NOT IN ('revoked', 'rotated');
        IF NOT FOUND THEN
          v_reason := format('key %s was deactivated concurrently; it stays deactivated', p_key_id);
        END IF;
      END IF;
    END IF;
  END IF;

  UPDATE processed_events SET outcome = v_outcome, reason = v_reason, processed_at = clock_timestamp(),
    processing_micros = (extract(epoch FROM clock_timestamp() - v_started) * 1000000)::int
  WHERE id = v_ledger_id;
  RETURN QUERY SELECT v_outcome, v_reason, v_ledger_id, NULL::text, NULL::timestamptz;
END;
$$;
