import "server-only";
// Passkeys and security keys (WebAuthn) through @simplewebauthn/server, resident or not: the
// person has already given their password, so sign-in lists their own credentials. The relying
// party is the dashboard's public URL (NEXTAUTH_URL): its host is the RP ID, its origin the only
// one accepted. An IP address cannot be an RP ID, so `npm run dev` without NEXTAUTH_URL uses
// http://localhost:PORT. Each challenge is stored server-side and taken by the one verification
// that uses it.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isIP } from "node:net";
import { env, type Env } from "../../config/env";
import { prisma, type DbOrTx } from "../../db/client";
import { log } from "../../log";

const CHALLENGE_MINUTES = 5;

type RelyingParty = { id: string; origin: string; name: string };

/** null: passkeys cannot work here (a production deployment without NEXTAUTH_URL, or one on an IP address). */
export function relyingParty(config: Pick<Env, "NEXTAUTH_URL" | "NODE_ENV" | "PORT"> = env()): RelyingParty | null {
  const url = config.NEXTAUTH_URL
    ? new URL(config.NEXTAUTH_URL)
    : config.NODE_ENV === "production"
      ? null
      : new URL(`http://localhost:${config.PORT}`);
  if (!url || isIP(url.hostname.replace(/^\[|\]$/g, ""))) return null;
  return { id: url.hostname, origin: url.origin, name: "Keyhook" };
}

function requireRelyingParty(): RelyingParty {
  const rp = relyingParty();
  if (!rp) throw new Error("passkeys need NEXTAUTH_URL with a host name");
  return rp;
}

async function storeChallenge(userId: string, purpose: string, challenge: string, now: Date, db: DbOrTx) {
  const expiresAt = new Date(now.getTime() + CHALLENGE_MINUTES * 60_000);
  await db.mfaChallenge.upsert({
    where: { userId_purpose: { userId, purpose } },
    create: { userId, purpose, challenge, expiresAt },
    update: { challenge, expiresAt },
  });
}

/** The challenge, once: deleted as it is read, so a response can be verified against it only once. */
async function takeChallenge(userId: string, purpose: string, now: Date, db: DbOrTx): Promise<string | null> {
  const rows = await db.$queryRaw<{ challenge: string; expires_at: Date }[]>`
    DELETE FROM mfa_challenges WHERE user_id = ${userId} AND purpose = ${purpose}
    RETURNING challenge, expires_at`;
  const row = rows[0];
  return row && row.expires_at.getTime() > now.getTime() ? row.challenge : null;
}

export async function passkeyRegistrationOptions(
  options: { userId: string; email: string; now?: Date },
  db: DbOrTx = prisma,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const rp = requireRelyingParty();
  const existing = await db.mfaFactor.findMany({
    where: { userId: options.userId, kind: "passkey" },
    select: { credentialId: true, transports: true },
  });
  const registration = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: options.email,
    userID: new TextEncoder().encode(options.userId),
    attestationType: "none",
    excludeCredentials: existing.map((c) => ({ id: c.credentialId!, transports: c.transports })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  });
  await storeChallenge(options.userId, "register", registration.challenge, options.now ?? new Date(), db);
  return registration;
}

/** Verifies a registration against the stored challenge and keeps the credential as a confirmed factor. */
export async function registerPasskey(
  options: { userId: string; response: unknown; label: string; now: Date },
  db: DbOrTx = prisma,
): Promise<string | null> {
  const rp = requireRelyingParty();
  const challenge = await takeChallenge(options.userId, "register", options.now, db);
  if (!challenge) return null;
  try {
    const verified = await verifyRegistrationResponse({
      response: options.response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
    if (!verified.verified) return null;
    const { credential } = verified.registrationInfo;
    const factor = await db.mfaFactor.create({
      data: {
        userId: options.userId,
        kind: "passkey",
        label: options.label,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey),
        signCount: BigInt(credential.counter),
        transports: credential.transports ?? [],
        confirmedAt: options.now,
      },
    });
    return factor.id;
  } catch (error) {
    // A malformed or foreign response is a refusal like any other; the reason is for the log.
    log.info("passkey registration refused", { error: String(error) });
    return null;
  }
}

export async function passkeyAuthenticationOptions(
  options: { userId: string; now?: Date },
  db: DbOrTx = prisma,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const rp = requireRelyingParty();
  const credentials = await db.mfaFactor.findMany({
    where: { userId: options.userId, kind: "passkey", confirmedAt: { not: null } },
    select: { credentialId: true, transports: true },
  });
  const request = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: credentials.map((c) => ({ id: c.credentialId!, transports: c.transports })),
    userVerification: "preferred",
  });
  await storeChallenge(options.userId, "authenticate", request.challenge, options.now ?? new Date(), db);
  return request;
}

/** Verifies an assertion by one of the user's passkeys; its counter moves forward once. Returns the factor id. */
export async function acceptPasskey(
  options: { userId: string; response: unknown; now: Date },
  db: DbOrTx = prisma,
): Promise<string | null> {
  const rp = relyingParty();
  if (!rp) return null;
  const response = options.response as AuthenticationResponseJSON;
  const challenge = await takeChallenge(options.userId, "authenticate", options.now, db);
  if (!challenge || typeof response?.id !== "string") return null;
  const factor = await db.mfaFactor.findFirst({
    where: { userId: options.userId, kind: "passkey", credentialId: response.id, confirmedAt: { not: null } },
  });
  if (!factor) return null;
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: factor.credentialId!,
        publicKey: new Uint8Array(factor.publicKey!),
        counter: Number(factor.signCount),
        transports: factor.transports,
      },
      requireUserVerification: false,
    });
    if (!verified.verified) return null;
    const taken = await db.$executeRaw`
      UPDATE mfa_factors SET sign_count = ${BigInt(verified.authenticationInfo.newCounter)}, last_used_at = ${options.now}::timestamptz
      WHERE id = ${factor.id} AND sign_count = ${factor.signCount}`;
    return taken === 1 ? factor.id : null;
  } catch (error) {
    log.info("passkey assertion refused", { error: String(error) });
    return null;
  }
}
