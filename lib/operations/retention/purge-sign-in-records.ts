import "server-only";
// The sign-in throttle's and the failed-sign-in counters' rows are bounded like the ledger: an
// attacker spraying random emails from many addresses writes a row per address and per subject
// and window, and nothing else ever deletes them.
// - An address row that is not locked and has been quiet for ADDRESS_QUIET_MINUTES means nothing
//   any more: the next attempt from that address starts from 1 anyway (claim-sign-in-attempt.ts).
// - A failure counter is what the audit page shows beside its window's one audit row. It is kept
//   for SIGN_IN_FAILURE_RETENTION_DAYS (a setting); after that the audit row stays (until the
//   audit log's own retention) and shows the window without its count.
import { prisma, type DbOrTx } from "../../core/db/client";
import { env } from "../../core/config/env";
import { ADDRESS_QUIET_MINUTES } from "../../core/auth/sign-in-throttle";

type PurgeSignInRecordsResult = { addressRows: number; failureWindows: number };

export async function purgeSignInRecords(
  options: { now: Date },
  db: DbOrTx = prisma,
): Promise<PurgeSignInRecordsResult> {
  const quietSince = new Date(options.now.getTime() - ADDRESS_QUIET_MINUTES * 60_000);
  const failuresBefore = new Date(options.now.getTime() - env().SIGN_IN_FAILURE_RETENTION_DAYS * 86_400_000);
  const addressRows = await db.$executeRaw`
    DELETE FROM sign_in_address_throttle
    WHERE updated_at < ${quietSince}::timestamptz
      AND (locked_until IS NULL OR locked_until <= ${options.now}::timestamptz)`;
  const failureWindows = await db.$executeRaw`
    DELETE FROM sign_in_failures WHERE last_at < ${failuresBefore}::timestamptz`;
  return { addressRows, failureWindows };
}
