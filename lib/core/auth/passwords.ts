import "server-only";
// Password hashing with scrypt from node:crypto: the async form runs on libuv's thread pool, so
// a burst of sign-ins never blocks the event loop that serves ingest (bcryptjs is pure JS and
// did). Hashes are self-describing (`scrypt$N$r$p$salt$hash`), so the cost can be raised later
// and old hashes are upgraded on the next successful sign-in (needsRehash). bcrypt hashes from
// before this change are still verified, with bcryptjs, and rehashed at once.
import bcrypt from "bcryptjs";
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { env } from "../config/env";
import { Semaphore } from "../concurrency/semaphore";

type ScryptParams = { N: number; r: number; p: number };

// N = 2^15, r = 8: 32 MiB per hash (OWASP's minimum is 2^17 with
// r = 8 and p = 1 at 128 MiB; we keep memory modest because hashes run concurrently with ingest).
// Tests use 2^12 so a file with dozens of sign-ins stays fast; the format records the cost.
function currentParams(): ScryptParams {
  const config = env();
  const logN = config.PASSWORD_SCRYPT_LOG_N ?? (config.NODE_ENV === "test" ? 12 : 15);
  return { N: 2 ** logN, r: 8, p: 1 };
}

let computed = 0;

/** How many scrypt hashes this process has computed: the same-work test counts them per sign-in. */
export function scryptHashesComputed(): number {
  return computed;
}

const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  computed++;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

let limiter: Semaphore | undefined;

/** The one queue every password hash waits in (see SIGN_IN_HASH_CONCURRENCY). */
export function hashLimiter(): Semaphore {
  limiter ??= new Semaphore(env().SIGN_IN_HASH_CONCURRENCY, env().SIGN_IN_HASH_QUEUE);
  return limiter;
}

export async function hashPassword(password: string): Promise<string> {
  const params = currentParams();
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, params);
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

function parseScrypt(hash: string): { params: ScryptParams; salt: Buffer; key: Buffer } | null {
  const parts = hash.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) || N > 2 ** 20 || r > 32 || p > 16) return null;
  return { params: { N, r, p }, salt: Buffer.from(parts[4]!, "base64"), key: Buffer.from(parts[5]!, "base64") };
}

function isLegacyBcrypt(hash: string): boolean {
  return /^\$2[aby]\$\d\d\$/.test(hash);
}

/** True when the stored hash is older than the current format or cost: rehash after a successful check. */
export function needsRehash(hash: string): boolean {
  const parsed = parseScrypt(hash);
  if (!parsed) return true;
  const current = currentParams();
  return parsed.params.N !== current.N || parsed.params.r !== current.r || parsed.params.p !== current.p;
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const parsed = parseScrypt(hash);
  if (parsed) {
    const key = await scryptAsync(password, parsed.salt, parsed.params);
    return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  }
  // Only accounts that have not signed in since the switch; each is rehashed on its next success.
  if (isLegacyBcrypt(hash)) return bcrypt.compare(password, hash);
  return false;
}

// Compared against when there is no real hash to check (unknown email, throttled account), so
// every answer costs one hash of the current cost and response times reveal nothing.
let timingDummy: { cost: string; hash: Promise<string> } | undefined;

export async function burnPasswordCheck(password: string): Promise<void> {
  const cost = String(currentParams().N);
  if (timingDummy?.cost !== cost) timingDummy = { cost, hash: hashPassword("keyhook-timing-dummy") };
  await verifyPassword(password, await timingDummy.hash);
}
