import "server-only";
// The Credentials sign-in. Every attempt, whatever the account, costs the same: one throttle
// claim per gate (claim-sign-in-attempt.ts), exactly one password hash (against a dummy hash when
// there is nothing real to check) and one failure counter, and every refusal carries the same
// message. So neither the answer nor its timing says whether an email exists, is throttled or
// is disabled. Hashing waits in one bounded queue (passwords.ts) so sign-ins cannot starve ingest.
import { prisma, type DbOrTx } from "../db/client";
import { recordAudit } from "../audit/record-audit";
import { recordSignInFailure } from "../audit/record-sign-in-failure";
import { isRole, type Actor } from "./actor";
import {
  claimAccountAttempt,
  claimAddressAttempt,
  giveBackAccountAttempt,
  settleAccountSuccess,
  settleAddressSuccess,
} from "./claim-sign-in-attempt";
import { env } from "../config/env";
import { holdsFactor } from "./mfa/factor-facts";
import { factorRequired } from "./mfa/mfa-policy";
import { burnPasswordCheck, hashLimiter, hashPassword, needsRehash, verifyPassword } from "./passwords";
import { SIGN_IN_ERROR_CODES, type SignInErrorCode } from "./sign-in-messages";

const MAX_EMAIL_LENGTH = 320;
/** Passwords are at most 72 bytes (user-fields.ts); anything past this is not worth hashing. */
const MAX_PASSWORD_INPUT = 200;

type SignInResult =
  /** `factorNext`: the sign-in is not complete until a second factor is proven (or enrolled). */
  | { ok: true; actor: Actor; sessionVersion: number; factorNext: boolean }
  // `reason` is for logs and tests only; the user sees `code`, the same for every refusal.
  | { ok: false; reason: "invalid" | "locked" | "disabled" | "busy"; code: SignInErrorCode };

export async function verifyCredentials(
  options: { email: string; password: string; address?: string; now?: Date },
  db: DbOrTx = prisma,
): Promise<SignInResult> {
  // Longer than any account's email or password can be: refused like a wrong password (same
  // message, same one hash), never cut to a prefix that might match.
  const email = options.email.trim().toLowerCase();
  const overLong = email.length > MAX_EMAIL_LENGTH || options.password.length > MAX_PASSWORD_INPUT;
  const address = (options.address ?? "unknown").slice(0, 100);
  const now = options.now ?? new Date();
  const queued = await hashLimiter().run(() =>
    attempt(
      {
        email: overLong ? "" : email,
        password: overLong ? options.password.slice(0, MAX_PASSWORD_INPUT) : options.password,
        address,
        now,
      },
      db,
    ),
  );
  // A full queue refuses before looking anything up: the same for every email, nothing counted.
  return queued.busy ? { ok: false, reason: "busy", code: SIGN_IN_ERROR_CODES.busy } : queued.value;
}

async function attempt(
  options: { email: string; password: string; address: string; now: Date },
  db: DbOrTx,
): Promise<SignInResult> {
  const { email, password, address, now } = options;
  const found = email ? await db.user.findUnique({ where: { email } }) : null;
  const user = found && found.passwordHash && isRole(found.role) ? { ...found, role: found.role } : null;

  const addressOpen = await claimAddressAttempt(address, now, db);
  const accountOpen = addressOpen && user ? await claimAccountAttempt(user.id, now, db) : false;
  const checked =
    accountOpen && user
      ? await verifyPassword(password, user.passwordHash!)
      : (await burnPasswordCheck(password), false);

  if (!user || !checked || user.disabledAt) {
    const reason = !addressOpen || (user && !accountOpen) ? "locked" : user && checked ? "disabled" : "invalid";
    await recordSignInFailure(
      user
        ? {
            subject: `user:${user.id}`,
            actor: { id: user.id, label: `${user.email} (${user.role})` },
            tenantId: user.tenantId,
            address,
            now,
          }
        : {
            subject: `address:${address}`,
            actor: { id: null, label: `unknown email from ${address}` },
            tenantId: null,
            address,
            now,
          },
      db,
    );
    return { ok: false, reason, code: SIGN_IN_ERROR_CODES.invalid };
  }

  if (needsRehash(user.passwordHash!)) await rehash(user.id, password, db);
  // Only here, after the password checked out, is it looked up whether a factor comes next: every
  // refusal above costs and says the same for an account with a factor and one without.
  const factorNext = factorRequired(user.role, env().MFA_REQUIRED_ROLES) || (await holdsFactor(user.id, db));
  // A sign-in that still needs its second factor has not succeeded yet: the counter does not
  // start over, so wrong codes keep adding up however often the password is given again.
  if (factorNext) await giveBackAccountAttempt(user.id, db);
  else await settleAccountSuccess(user.id, now, db);
  await settleAddressSuccess(address, db);
  await recordAudit(
    {
      actor: { id: user.id, label: `${user.email} (${user.role})` },
      action: "sign-in",
      tenantId: user.tenantId,
      outcome: "ok",
      details: { method: "password", ...(factorNext ? { secondFactor: "pending" } : {}) },
    },
    db,
  );
  // Read after the rehash so the session is issued under the version the row holds now.
  const { sessionVersion } = await db.user.findUniqueOrThrow({
    where: { id: user.id },
    select: { sessionVersion: true },
  });
  return {
    ok: true,
    sessionVersion,
    factorNext,
    actor: { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId },
  };
}

/** Same password, new format: flagged for the session-version trigger, so other sessions live on. */
async function rehash(userId: string, password: string, db: DbOrTx): Promise<void> {
  const passwordHash = await hashPassword(password);
  const write = async (tx: DbOrTx) => {
    await tx.$executeRaw`SELECT set_config('keyhook.password_rehash', 'on', true)`;
    await tx.user.update({ where: { id: userId }, data: { passwordHash } });
  };
  // (`in` would not do: the shared client is a Proxy without a `has` trap.)
  const client = db as { $transaction?: unknown };
  if (typeof client.$transaction === "function") await (db as typeof prisma).$transaction(write);
  else await write(db);
}
