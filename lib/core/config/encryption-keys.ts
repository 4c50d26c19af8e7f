// SECRETS_ENCRYPTION_KEYS: `id:base64` entries separated by spaces or commas, newest first. The
// newest encrypts every new write; the older ones only decrypt what they wrote, until
// `npm run secrets -- rotate` has re-encrypted it and the operator removes them.
// No imports: lib/core/config/env.ts validates with this and must stay free of cycles.

export type EncryptionKey = { id: string; key: Buffer };

export const KEY_BYTES = 32;
const ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** The keys, newest first, or what is wrong with the value (never echoing key material). */
export function parseEncryptionKeys(raw: string): EncryptionKey[] | string {
  const entries = raw.split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0) return "must hold at least one id:base64 key";
  const keys: EncryptionKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(":");
    const id = colon > 0 ? entry.slice(0, colon) : "";
    const where = `entry ${index + 1}`;
    if (!ID_PATTERN.test(id)) return `${where} must be id:base64, the id 1-32 letters, digits, - or _`;
    const encoded = entry.slice(colon + 1);
    const key = Buffer.from(encoded, "base64");
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) || key.length !== KEY_BYTES)
      return `key "${id}" must be ${KEY_BYTES} random bytes in base64 (\`npm run secrets -- new-key\` prints one)`;
    if (keys.some((k) => k.id === id)) return `key id "${id}" appears twice`;
    keys.push({ id, key });
  }
  return keys;
}
