-- keyhook_key_status_is_terminal: the trigger function that keeps a rotated or revoked key from
-- ever coming back (docs/design.md, invariant 4), whatever writes the row: the ingest function,
-- a service, a script, a hand-typed UPDATE. Revoked outranks rotated, so the one change left to a
-- terminal key is rotated → revoked. The terminal statuses are lib/core/vocabulary.ts's
-- TERMINAL_KEY_STATUSES (test/core/db/vocabulary.integration.test.ts compares them). THE source of
-- this function; see keyhook_apply_event.sql for how a change reaches a migration. The trigger
-- itself (api_keys_terminal_status) is in the migration.
CREATE OR REPLACE FUNCTION keyhook_key_status_is_terminal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status IN ('rotated', 'revoked') AND NEW.status IS DISTINCT FROM OLD.status
     AND NOT (OLD.status = 'rotated' AND NEW.status = 'revoked') THEN
    RAISE EXCEPTION 'api key % is %: it cannot become % (rotated and revoked are terminal)', OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;
