import "server-only";
// The atomic half of the throttle (see sign-in-throttle.ts): one statement per gate that decides
// whether this attempt may check a password and, if so, counts it as a failure in advance. Under
// READ COMMITTED a concurrent attempt waits for the row lock and re-evaluates the WHERE on the
// row the first one wrote, so no two attempts can both see the door open when only one may pass.
import { Prisma } from "../../generated/prisma/client";
import type { DbOrTx } from "../db/client";
import { ADDRESS_FREE_ATTEMPTS, ADDRESS_QUIET_MINUTES, FREE_ATTEMPTS, MAX_LOCK_SECONDS } from "./sign-in-throttle";

/** The new lock as SQL: `now + min(2^(count - free), cap)` seconds once count reaches `free`. */
function lockAfter(count: Prisma.Sql, free: number, now: Date): Prisma.Sql {
  // The exponent is capped too: 2^(a million failures) would overflow.
  return Prisma.sql`CASE WHEN ${count} >= ${free}
    THEN ${now}::timestamptz + make_interval(secs => LEAST(power(2, LEAST(${count} - ${free}, 30)), ${MAX_LOCK_SECONDS}))
    ELSE NULL END`;
}

/** true: this attempt may check the password (already counted as a failure). false: the door is closed. */
export async function claimAccountAttempt(userId: string, now: Date, db: DbOrTx): Promise<boolean> {
  const next = Prisma.sql`LEAST(failed_logins + 1, 1000000)`;
  const rows = await db.$queryRaw<{ failed_logins: number }[]>`
    UPDATE users SET failed_logins = ${next}, locked_until = ${lockAfter(next, FREE_ATTEMPTS, now)}
    WHERE id = ${userId} AND (locked_until IS NULL OR locked_until <= ${now}::timestamptz)
    RETURNING failed_logins`;
  return rows.length === 1;
}

/** The password was right: the advance count is given back and the backoff starts over. */
export async function settleAccountSuccess(userId: string, now: Date, db: DbOrTx): Promise<void> {
  await db.$executeRaw`UPDATE users SET failed_logins = 0, locked_until = NULL, last_login_at = ${now}::timestamptz WHERE id = ${userId}`;
}

/**
 * The password was right but a second factor is still to come: the advance count is given back
 * without starting over, so wrong codes keep adding up across password re-entries.
 */
export async function giveBackAccountAttempt(userId: string, db: DbOrTx): Promise<void> {
  await db.$executeRaw`UPDATE users SET failed_logins = GREATEST(failed_logins - 1, 0),
    locked_until = CASE WHEN failed_logins - 1 >= ${FREE_ATTEMPTS} THEN locked_until ELSE NULL END
    WHERE id = ${userId}`;
}

export async function claimAddressAttempt(address: string, now: Date, db: DbOrTx): Promise<boolean> {
  const quietSince = new Date(now.getTime() - ADDRESS_QUIET_MINUTES * 60_000);
  const next = Prisma.sql`(CASE WHEN t.updated_at < ${quietSince}::timestamptz THEN 1 ELSE LEAST(t.failed_logins + 1, 1000000) END)`;
  const rows = await db.$queryRaw<{ failed_logins: number }[]>`
    INSERT INTO sign_in_address_throttle AS t (address, failed_logins, locked_until, updated_at)
    VALUES (${address}, 1, ${lockAfter(Prisma.sql`1`, ADDRESS_FREE_ATTEMPTS, now)}, ${now}::timestamptz)
    ON CONFLICT (address) DO UPDATE SET failed_logins = ${next},
      locked_until = ${lockAfter(next, ADDRESS_FREE_ATTEMPTS, now)}, updated_at = ${now}::timestamptz
    WHERE t.locked_until IS NULL OR t.locked_until <= ${now}::timestamptz
    RETURNING failed_logins`;
  return rows.length === 1;
}

/** A success gives the address its advance count back (it keeps counting the real failures). */
export async function settleAddressSuccess(address: string, db: DbOrTx): Promise<void> {
  await db.$executeRaw`UPDATE sign_in_address_throttle SET failed_logins = GREATEST(failed_logins - 1, 0) WHERE address = ${address}`;
}
