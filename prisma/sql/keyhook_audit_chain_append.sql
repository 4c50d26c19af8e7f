-- keyhook_audit_chain_append: the BEFORE INSERT trigger function that binds every new audit_log
-- row into the hash chain in the statement that writes it (docs/audit.md, decision 0033). THE
-- source of this function; see keyhook_apply_event.sql for how a change reaches a migration. The
-- trigger itself (audit_log_chain) is in the migration.
--
-- The app computes the entry's content hash (lib/core/audit/audit-hash.ts: RFC 8785 JSON needs
-- JavaScript's number and string rules); here the entry gets the next seq under the one head
-- row's lock, and its link hash over {at, content, id, prev, seq}. The row lock is held until the
-- writer's transaction ends, so seq order is commit order and the chain has no holes: a
-- transaction that rolls back hands its seq back with the head row's update.
--
-- While entries written before the chain existed wait for their hashes (head.hash IS NULL, until
-- lib/core/audit/seal-audit-chain.ts runs), new ones take their seq and wait with them.
CREATE OR REPLACE FUNCTION keyhook_audit_chain_append() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
  v_prev bytea;
  v_hash bytea;
BEGIN
  IF NEW.content_hash IS NULL OR length(NEW.content_hash) <> 32 THEN
    RAISE EXCEPTION 'audit_log: an entry needs its 32-byte content_hash (append through recordAudit)';
  END IF;
  UPDATE audit_chain_head SET seq = seq + 1, prev_hash = hash,
    hash = CASE WHEN hash IS NULL THEN NULL ELSE sha256(convert_to(
      '{"at":"' || to_char(NEW.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      || '","content":"' || encode(NEW.content_hash, 'hex')
      || '","id":"' || NEW.id::text
      || '","prev":"' || encode(hash, 'hex')
      || '","seq":"' || (seq + 1)::text || '"}', 'UTF8')) END
  RETURNING seq, prev_hash, hash INTO v_seq, v_prev, v_hash;
  IF v_seq IS NULL THEN
    RAISE EXCEPTION 'audit_log: the chain head row is missing';
  END IF;
  NEW.seq := v_seq;
  NEW.prev_hash := v_prev;
  NEW.hash := v_hash;
  RETURN NEW;
END;
$$;
