import "server-only";
// The Credentials sign-in: throttled per account (sign-in-throttle.ts), every attempt audited.
import { prisma, type DbOrTx } from "../db";
import { recordAudit } from "../audit/record-audit";
import { isRole, type Actor } from "./actor";
import { burnPasswordCheck, verifyPassword } from "./passwords";
import { FREE_ATTEMPTS, MAX_LOCK_SECONDS, secondsUntilUnlocked } from "./sign-in-throttle";

export type SignInResult =
  | { ok: true; actor: Actor }
  | { ok: false; reason: "invalid" | "locked" | "disabled"; retryAfterSeconds?: number; message: string };

const INVALID = "Invalid email or password.";

export async function verifyCredentials(
  options: { email: string; password: string; now?: Date },
  db: DbOrTx = prisma,
): Promise<SignInResult> {
  const email = options.email.trim().toLowerCase().slice(0, 320);
  const now = options.now ?? new Date();
  const user = email ? await db.user.findUnique({ where: { email } }) : null;

  if (!user || !user.passwordHash || !isRole(user.role)) {
    await burnPasswordCheck(options.password);
    await recordAudit({ actor: { id: null, label: email || "(empty)" }, action: "sign-in", outcome: "denied", details: { reason: "invalid" } }, db);
    return { ok: false, reason: "invalid", message: INVALID };
  }
  const actorRef = { id: user.id, label: `${user.email} (${user.role})` };

  const wait = secondsUntilUnlocked(user.lockedUntil, now);
  if (wait > 0) {
    // Refused without checking or counting: see sign-in-throttle.ts for why.
    await recordAudit({ actor: actorRef, action: "sign-in", tenantId: user.tenantId, outcome: "denied", details: { reason: "locked", retryAfterSeconds: wait } }, db);
    return { ok: false, reason: "locked", retryAfterSeconds: wait, message: `Too many failed attempts. Try again in ${wait} s.` };
  }

  if (!(await verifyPassword(options.password, user.passwordHash))) {
    // One statement: concurrent failures each count, and the lock is computed from the new count.
    const [row] = await db.$queryRaw<{ failed_logins: number }[]>`
      UPDATE users SET failed_logins = LEAST(failed_logins + 1, 1000000),
        locked_until = CASE WHEN failed_logins + 1 >= ${FREE_ATTEMPTS}
          -- The exponent is capped too: 2^(a million failures) would overflow.
          THEN ${now}::timestamptz + make_interval(secs => LEAST(power(2, LEAST(failed_logins + 1 - ${FREE_ATTEMPTS}, 30)), ${MAX_LOCK_SECONDS}))
          ELSE NULL END
      WHERE id = ${user.id}
      RETURNING failed_logins`;
    await recordAudit({ actor: actorRef, action: "sign-in", tenantId: user.tenantId, outcome: "denied", details: { reason: "invalid", failedLogins: row?.failed_logins } }, db);
    return { ok: false, reason: "invalid", message: INVALID };
  }

  if (user.disabledAt) {
    await recordAudit({ actor: actorRef, action: "sign-in", tenantId: user.tenantId, outcome: "denied", details: { reason: "disabled" } }, db);
    return { ok: false, reason: "disabled", message: "This account is disabled." };
  }

  await db.user.update({ where: { id: user.id }, data: { failedLogins: 0, lockedUntil: null, lastLoginAt: now } });
  await recordAudit({ actor: actorRef, action: "sign-in", tenantId: user.tenantId, outcome: "ok", details: { method: "password" } }, db);
  return { ok: true, actor: { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId } };
}
