// Import FIRST in a test file to run it through the transaction-mode PgBouncer the global setup
// started: DATABASE_URL becomes this file's database behind the pooler (`pgbouncer=true`), and
// DIRECT_DATABASE_URL the database itself, exactly as a pooled deployment is configured.
// Importing an existing test file after it runs that file's tests through the pooler.
// Without pgbouncer the tests skip with the reason, except under CI=true, where they fail.
import { beforeEach, inject } from "vitest";
import { resetEnvForTests } from "@/lib/core/config/env";

const port = inject("pgbouncerPort");
export const poolerMissing = port ? null : inject("pgbouncerMissing") || "pgbouncer did not start";

if (poolerMissing) {
  if (process.env.CI === "true") throw new Error(`pooled tests cannot run under CI: ${poolerMissing}`);
  beforeEach((context) => context.skip(`skipped: ${poolerMissing}`));
} else {
  const direct = new URL(process.env.DATABASE_URL!);
  const pooled = new URL(direct);
  pooled.port = String(port);
  pooled.searchParams.set("pgbouncer", "true");
  process.env.DIRECT_DATABASE_URL = direct.toString();
  process.env.DATABASE_URL = pooled.toString();
  resetEnvForTests();
}

/** This file's database through the pooler, as the app sees it. */
export const pooledUrl = () => process.env.DATABASE_URL!;
/** The same database, direct. */
export const directUrl = () => process.env.DIRECT_DATABASE_URL ?? process.env.DATABASE_URL!;
