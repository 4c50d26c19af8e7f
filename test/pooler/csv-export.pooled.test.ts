// test/views/csv/csv-sql.integration.test.ts, every case (the export's pages written by PostgreSQL),
// through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../views/csv/csv-sql.integration.test";
