// test/ingest/dedupe.integration.test.ts, every case, through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../ingest/dedupe.integration.test";
