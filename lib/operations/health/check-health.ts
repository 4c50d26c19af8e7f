import "server-only";
// What a load balancer needs to know. Liveness: this process answers (no database: a database
// outage must not get every replica restarted). Readiness: the database answers through the
// app's own pool (the pooler, when DATABASE_URL is one) and its migrations are current.
// The answers are public, so they carry states only; what went wrong (error text, host, port,
// migration names) goes to the log.
import { prisma, type DbOrTx } from "../../core/db/client";
import { describeError, log } from "../../core/log";
import { migrationStatus } from "./migration-status";

export type Liveness = { ok: true };
export type Readiness = {
  ok: boolean;
  database: "up" | "down";
  migrations: "current" | "pending" | "failed" | "unknown";
};

export function checkLiveness(): Liveness {
  return { ok: true };
}

export async function checkReadiness(db: DbOrTx = prisma): Promise<Readiness> {
  try {
    await db.$queryRaw`SELECT 1`;
  } catch (error) {
    log.warn("readiness: database unreachable", { error: describeError(error) });
    return { ok: false, database: "down", migrations: "unknown" };
  }
  try {
    const status = await migrationStatus({ query: (sql) => db.$queryRawUnsafe(sql) });
    if (status.failed.length > 0) {
      log.warn("readiness: failed migrations", { migrations: status.failed });
      return { ok: false, database: "up", migrations: "failed" };
    }
    if (status.pending.length > 0) {
      log.warn("readiness: pending migrations", { migrations: status.pending });
      return { ok: false, database: "up", migrations: "pending" };
    }
  } catch (error) {
    log.warn("readiness: could not read the migration state", { error: describeError(error) });
    return { ok: false, database: "up", migrations: "unknown" };
  }
  return { ok: true, database: "up", migrations: "current" };
}
