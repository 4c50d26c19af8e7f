import "server-only";
// Failed sign-ins are counted, not logged one by one: the audit log is append-only, so one
// client guessing passwords would otherwise write a row per guess.
// Each subject (an account, or the client address for emails we do not know) gets one counter
// row per window in sign_in_failures, and the audit log one row per window, written by whichever
// failure created the counter. The audit page and CSV show the counter beside that row.
import { prisma, type DbOrTx } from "../db/client";
import { recordAudit, type AuditActor } from "./record-audit";

export const SIGN_IN_FAILURE_WINDOW_MINUTES = 15;

function failureWindowStart(now: Date): Date {
  const size = SIGN_IN_FAILURE_WINDOW_MINUTES * 60_000;
  return new Date(Math.floor(now.getTime() / size) * size);
}

export async function recordSignInFailure(
  options: {
    subject: string;
    actor: AuditActor;
    tenantId: string | null;
    address: string;
    now: Date;
    /** What failed, for the audit row: a password (the default) or a second factor. */
    reason?: "failed" | "wrong second factor";
  },
  db: DbOrTx = prisma,
): Promise<{ count: number; audited: boolean }> {
  const windowStart = failureWindowStart(options.now);
  // xmax = 0 only on the row this statement inserted: exactly one failure per window audits it.
  const [row] = await db.$queryRaw<{ count: number; inserted: boolean }[]>`
    INSERT INTO sign_in_failures AS f (subject, window_start, actor_id, tenant_id, count, last_at, last_address)
    VALUES (${options.subject}, ${windowStart}::timestamptz, ${options.actor.id}, ${options.tenantId}, 1, ${options.now}::timestamptz, ${options.address})
    ON CONFLICT (subject, window_start) DO UPDATE SET count = f.count + 1, last_at = EXCLUDED.last_at, last_address = EXCLUDED.last_address
    RETURNING count, (xmax = 0) AS inserted`;
  const audited = row?.inserted === true;
  if (audited) {
    await recordAudit(
      {
        actor: options.actor,
        action: "sign-in",
        tenantId: options.tenantId,
        target: options.subject,
        outcome: "denied",
        details: {
          reason: options.reason ?? "failed",
          aggregated: true,
          windowStart: windowStart.toISOString(),
          windowMinutes: SIGN_IN_FAILURE_WINDOW_MINUTES,
        },
      },
      db,
    );
  }
  return { count: row?.count ?? 0, audited };
}
