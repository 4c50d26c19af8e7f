import "server-only";
// What a load balancer needs to know: can we reach the database, and is its schema current?
import { prisma, type Db } from "../db";
import { describeError } from "../log";
import { migrationStatus } from "./migration-status";

export type Health = { ok: boolean; database: "up" | "down"; migrations: "current" | "pending" | "failed" | "unknown"; detail?: string };

export async function checkHealth(db: Db = prisma): Promise<Health> {
  try {
    await db.$queryRaw`SELECT 1`;
  } catch (error) {
    return { ok: false, database: "down", migrations: "unknown", detail: describeError(error) };
  }
  const status = await migrationStatus({ query: (sql) => db.$queryRawUnsafe(sql) });
  if (status.failed.length > 0) return { ok: false, database: "up", migrations: "failed", detail: status.failed.join(", ") };
  if (status.pending.length > 0) return { ok: false, database: "up", migrations: "pending", detail: status.pending.join(", ") };
  return { ok: true, database: "up", migrations: "current" };
}
