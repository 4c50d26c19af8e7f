// test/core/ingest/tenancy.integration.test.ts, every case, through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../core/ingest/tenancy.integration.test";
