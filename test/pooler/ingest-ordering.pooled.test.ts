// test/ingest/ordering.integration.test.ts, every case, through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../ingest/ordering.integration.test";
