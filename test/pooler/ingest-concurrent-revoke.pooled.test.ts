// test/core/ingest/concurrent-revoke.integration.test.ts, every case, through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../core/ingest/concurrent-revoke.integration.test";
