import "server-only";
// Secrets the app stores itself are sealed with AES-256-GCM before they reach the database:
//   enc1:<key id>:<iv>:<ciphertext + tag>   (base64url; a fresh 12-byte iv per write)
// The key id says which SECRETS_ENCRYPTION_KEYS entry opens it, so keys can rotate; the
// additional data binds a value to its column and row, so a sealed value copied into another row
// or column does not open there.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { env } from "../config/env";
import { AppError } from "../errors";
import { developmentKeys } from "./development-key";
import { parseEncryptionKeys, type EncryptionKey } from "../config/encryption-keys";

const PREFIX = "enc1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

let cache: { raw: string; keys: EncryptionKey[] } | undefined;

/** The configured keys, newest first (the development key when none are set outside production). */
export function encryptionKeys(): EncryptionKey[] {
  const raw = env().SECRETS_ENCRYPTION_KEYS ?? developmentKeys();
  if (cache?.raw !== raw) {
    const keys = parseEncryptionKeys(raw);
    if (typeof keys === "string")
      throw new AppError("invalid_setting", `invalid setting SECRETS_ENCRYPTION_KEYS: ${keys}`);
    cache = { raw, keys };
  }
  return cache.keys;
}

/** What a sealed value is bound to: its table, column and row. */
export type SealContext = string;

export function sealSecret(plaintext: string, context: SealContext, keys = encryptionKeys()): string {
  const { id, key } = keys[0]!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context));
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return [PREFIX, id, iv.toString("base64url"), sealed.toString("base64url")].join(":");
}

/** The key id of a sealed value; null for a value stored before encryption (clear text). */
export function sealedKeyId(stored: string): string | null {
  if (!stored.startsWith(`${PREFIX}:`)) return null;
  return stored.split(":")[1] ?? "";
}

/** No configured key opens a stored value: its key id is not configured, or the key under it is another one. */
export class SecretKeyError extends Error {
  constructor(
    readonly keyId: string,
    readonly problem: "unknown_key" | "wrong_key",
  ) {
    super(
      problem === "unknown_key"
        ? `sealed with key "${keyId}", which SECRETS_ENCRYPTION_KEYS does not hold`
        : `sealed with key "${keyId}", and the key of that id in SECRETS_ENCRYPTION_KEYS does not open it`,
    );
    this.name = "SecretKeyError";
  }
}

/**
 * The plaintext of a stored value. A value written before encryption existed is returned as it
 * is (`npm run secrets -- rotate` seals it). Throws SecretKeyError when no configured key opens it.
 */
export function openSecret(stored: string, context: SealContext, keys = encryptionKeys()): string {
  const keyId = sealedKeyId(stored);
  if (keyId === null) return stored;
  const [, , ivText, dataText] = stored.split(":");
  const entry = keys.find((k) => k.id === keyId);
  if (!entry) throw new SecretKeyError(keyId, "unknown_key");
  const data = Buffer.from(dataText ?? "", "base64url");
  try {
    const decipher = createDecipheriv("aes-256-gcm", entry.key, Buffer.from(ivText ?? "", "base64url"));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    throw new SecretKeyError(keyId, "wrong_key");
  }
}
