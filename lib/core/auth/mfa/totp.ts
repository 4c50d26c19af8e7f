import "server-only";
// Authenticator-app codes (RFC 6238: SHA-1, 6 digits, 30 s) through otplib. A code is accepted
// for the step before and after ours (clock drift), and never twice: the factor remembers the
// last step it accepted, and the UPDATE that records a step only matches while the stored one is
// older, so two requests racing with the same code cannot both win.
import { generateSecret, generateURI, verify } from "otplib";
import { prisma, type DbOrTx } from "../../db/client";
import { openSecret, sealSecret } from "../../secrets/secret-box";

const TOTP_PERIOD_SECONDS = 30;
const TOLERANCE_SECONDS = TOTP_PERIOD_SECONDS;
const TOTP_ISSUER = "Keyhook";

/** The sealed secret is bound to its factor row (secret-box's context). */
export function totpSealContext(factorId: string): string {
  return `mfa_factors.totp_secret:${factorId}`;
}

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function totpUri(options: { secret: string; email: string }): string {
  return generateURI({ issuer: TOTP_ISSUER, label: options.email, secret: options.secret });
}

/** The time step a code at `now` belongs to. */
export function totpStep(now: Date): number {
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** Six digits, spaces allowed ("123 456"); anything else is not a code. */
function normalizeTotpCode(input: string): string | null {
  const digits = input.replace(/[\s-]/g, "");
  return /^\d{6}$/.test(digits) ? digits : null;
}

/**
 * Checks `code` against the user's TOTP factors (`confirmed`: the counting ones, or the one being
 * enrolled) and, on a match, records its step so it never counts again. Returns the factor's id.
 */
export async function acceptTotpCode(
  options: { userId: string; code: string; now: Date; factorId?: string; confirmed: boolean },
  db: DbOrTx = prisma,
): Promise<string | null> {
  const code = normalizeTotpCode(options.code);
  if (!code) return null;
  const factors = await db.mfaFactor.findMany({
    where: {
      userId: options.userId,
      kind: "totp",
      confirmedAt: options.confirmed ? { not: null } : null,
      ...(options.factorId ? { id: options.factorId } : {}),
    },
    select: { id: true, totpSecret: true, totpLastStep: true },
  });
  for (const factor of factors) {
    const secret = openSecret(factor.totpSecret!, totpSealContext(factor.id));
    const result = await verify({
      secret,
      token: code,
      epoch: Math.floor(options.now.getTime() / 1000),
      epochTolerance: TOLERANCE_SECONDS,
      ...(factor.totpLastStep !== null ? { afterTimeStep: factor.totpLastStep } : {}),
    });
    if (!result.valid) continue;
    // The step the code belongs to: ours, or one either side of it.
    const step = totpStep(options.now) + result.delta;
    const taken = await db.$executeRaw`
      UPDATE mfa_factors SET totp_last_step = ${step}, last_used_at = ${options.now}::timestamptz,
        confirmed_at = COALESCE(confirmed_at, ${options.now}::timestamptz)
      WHERE id = ${factor.id} AND (totp_last_step IS NULL OR totp_last_step < ${step})`;
    if (taken === 1) return factor.id;
  }
  return null;
}

/** Seals a new secret for a factor row about to be written (the id is chosen first, for the context). */
export function sealTotpSecret(factorId: string, secret: string): string {
  return sealSecret(secret, totpSealContext(factorId));
}
