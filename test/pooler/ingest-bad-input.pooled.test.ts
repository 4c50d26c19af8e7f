// test/core/ingest/bad-input.integration.test.ts, every case, through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../core/ingest/bad-input.integration.test";
