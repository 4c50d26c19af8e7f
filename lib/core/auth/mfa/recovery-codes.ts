import "server-only";
// Ten one-time recovery codes per user. Shown once when issued, stored only as scrypt hashes
// (node:crypto), each usable once. The ten share one salt, so checking a code costs one hash
// whatever the account holds (one is burnt when it holds none); 50 random bits per code make a
// stolen table useless offline at this cost, and online guesses share the sign-in throttle.
import { randomBytes, randomInt, scrypt, timingSafeEqual } from "node:crypto";
import { prisma, type DbOrTx } from "../../db/client";

const RECOVERY_CODE_COUNT = 10;
// No 0/o, 1/l/i: a code is read off paper.
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const PARAMS = { N: 2 ** 14, r: 8, p: 1 };
const KEY_LENGTH = 32;

function newCode(): string {
  let code = "";
  for (let i = 0; i < 10; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** Case, spaces and dashes do not matter. */
function normalizeRecoveryCode(input: string): string {
  return input.toLowerCase().replace(/[^a-z0-9]/g, "");
}

function derive(code: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(normalizeRecoveryCode(code), salt, KEY_LENGTH, { ...PARAMS, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

function format(salt: Buffer, key: Buffer): string {
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

function parse(hash: string): { salt: Buffer; key: Buffer } | null {
  const parts = hash.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt" || Number(parts[1]) !== PARAMS.N) return null;
  return { salt: Buffer.from(parts[4]!, "base64"), key: Buffer.from(parts[5]!, "base64") };
}

/** Replaces the user's codes with ten new ones; the codes are returned once and never stored. */
export async function issueRecoveryCodes(userId: string, db: DbOrTx = prisma): Promise<string[]> {
  const salt = randomBytes(16);
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  const hashes = await Promise.all(codes.map(async (code) => format(salt, await derive(code, salt))));
  await db.mfaRecoveryCode.deleteMany({ where: { userId } });
  await db.mfaRecoveryCode.createMany({ data: hashes.map((codeHash) => ({ userId, codeHash })) });
  return codes;
}

export async function recoveryCodesLeft(userId: string, db: DbOrTx = prisma): Promise<number> {
  return db.mfaRecoveryCode.count({ where: { userId, usedAt: null } });
}

const burnSalt = randomBytes(16);

/**
 * Uses one of the user's codes: null when none matches (or it was used already), else how many
 * are left. The UPDATE only matches an unused code, so one code cannot be spent twice at once.
 */
export async function spendRecoveryCode(
  options: { userId: string; code: string; now: Date },
  db: DbOrTx = prisma,
): Promise<{ left: number } | null> {
  const rows = await db.mfaRecoveryCode.findMany({
    where: { userId: options.userId, usedAt: null },
    select: { id: true, codeHash: true },
  });
  const salt = rows.map((r) => parse(r.codeHash)?.salt).find(Boolean) ?? burnSalt;
  const key = await derive(options.code, salt);
  const match = rows.find((row) => {
    const stored = parse(row.codeHash);
    return stored !== null && stored.key.length === key.length && timingSafeEqual(stored.key, key);
  });
  if (!match) return null;
  const taken = await db.$executeRaw`
    UPDATE mfa_recovery_codes SET used_at = ${options.now}::timestamptz WHERE id = ${match.id} AND used_at IS NULL`;
  if (taken !== 1) return null;
  return { left: await recoveryCodesLeft(options.userId, db) };
}
