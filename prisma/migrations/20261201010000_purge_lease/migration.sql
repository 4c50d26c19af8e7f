-- Issue 9: the purge owns a run through a lease, safe through a transaction-mode pooler.

-- The purge's lease (lib/operations/retention/purge-connection.ts): a transaction-scoped advisory lock guards
-- taking it, the row proves who owns the run between its batches, and an expired lease (a
-- crashed replica) lets the next run take over.
ALTER TABLE "purge_runs" ADD COLUMN     "lease_until" TIMESTAMPTZ(3);
