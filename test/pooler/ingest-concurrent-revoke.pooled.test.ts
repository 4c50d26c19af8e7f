// test/ingest/concurrent-revoke.integration.test.ts, every case, through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../ingest/concurrent-revoke.integration.test";
