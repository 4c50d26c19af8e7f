// test/ingest/bad-input.integration.test.ts, every case, through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../ingest/bad-input.integration.test";
