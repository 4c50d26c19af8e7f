-- keyhook_note_sequence: gap tracking for a district's event sequence. Called by
-- keyhook_apply_event inside the ingest statement for a delivery that carries a sequence and is
-- not above the district's highest seen one (a late arrival: it may fill a gap), for an unknown
-- event type, and for a duplicate that falls in an open gap, so it costs no extra round trip. The
-- common case, a sequence above the highest seen, keyhook_apply_event handles inline under the
-- district lock it already holds, writing the district's row once (bench: pgbench L0). THE source of this function: edit it here, then
-- `npm run db:function -- keyhook_note_sequence`.
--
-- The provider's sequences are dense (PROVIDER_SEQUENCES_DENSE=1): a number skipped between the
-- highest one seen and a new, higher one is an event that has not arrived. It becomes a row in
-- sequence_gaps [from_seq, to_seq]; an arrival inside an open gap shrinks or splits it, and the
-- last one closes it. The district's row lock serialises all of this with the district's other
-- deliveries (the caller holds it for key events already; taking it again is free).
-- A district's first sequence is the baseline: what came before we subscribed is not missing.
CREATE OR REPLACE FUNCTION keyhook_note_sequence(
  p_tenant_id text,
  p_sequence bigint,
  p_received_at timestamptz
) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_last bigint;
  v_gap sequence_gaps%ROWTYPE;
BEGIN
  SELECT t.last_seen_sequence INTO v_last FROM tenants t WHERE t.id = p_tenant_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  IF v_last IS NULL OR p_sequence > v_last THEN
    IF v_last IS NOT NULL AND p_sequence > v_last + 1 THEN
      INSERT INTO sequence_gaps (tenant_id, from_seq, to_seq, first_noticed_at)
      VALUES (p_tenant_id, v_last + 1, p_sequence - 1, p_received_at);
    END IF;
    UPDATE tenants SET last_seen_sequence = p_sequence WHERE id = p_tenant_id;
    RETURN;
  END IF;

  -- At or below the highest seen: a late arrival, perhaps of a missing one.
  SELECT * INTO v_gap FROM sequence_gaps g
  WHERE g.tenant_id = p_tenant_id AND g.closed_at IS NULL AND p_sequence BETWEEN g.from_seq AND g.to_seq
  LIMIT 1;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF v_gap.from_seq = v_gap.to_seq THEN
    UPDATE sequence_gaps SET closed_at = p_received_at WHERE id = v_gap.id;
  ELSIF p_sequence = v_gap.from_seq THEN
    UPDATE sequence_gaps SET from_seq = from_seq + 1 WHERE id = v_gap.id;
  ELSIF p_sequence = v_gap.to_seq THEN
    UPDATE sequence_gaps SET to_seq = to_seq - 1 WHERE id = v_gap.id;
  ELSE
    -- Split: the part after the arrival keeps the time it was first noticed.
    UPDATE sequence_gaps SET to_seq = p_sequence - 1 WHERE id = v_gap.id;
    INSERT INTO sequence_gaps (tenant_id, from_seq, to_seq, first_noticed_at)
    VALUES (p_tenant_id, p_sequence + 1, v_gap.to_seq, v_gap.first_noticed_at);
  END IF;
END;
$$;
