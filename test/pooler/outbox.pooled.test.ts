// test/operations/outbox/process-outbox.test.ts, every case (workers in their own processes included),
// through a transaction-mode PgBouncer.
import "../support/via-pooler";
import "../operations/outbox/process-outbox.test";
