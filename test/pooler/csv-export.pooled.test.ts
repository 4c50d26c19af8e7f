// test/dashboard/csv-sql.integration.test.ts, every case (the export's pages written by PostgreSQL),
// through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../dashboard/csv-sql.integration.test";
