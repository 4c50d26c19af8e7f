// AUDIT_SIGNING_KEY: the Ed25519 keys that sign the audit log's checkpoints (docs/audit.md),
// `id:base64` entries of a 32-byte private key (its seed), separated by spaces or commas, newest
// first. The newest signs; the older ones are only published (their public halves), so the
// checkpoints they signed still verify until those age out of the audit window.
// No imports: lib/core/config/env.ts validates with this and must stay free of cycles.

type AuditSigningKey = { id: string; seed: Buffer };

const SEED_BYTES = 32;
const ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** The keys, newest first, or what is wrong with the value (never echoing key material). */
export function parseAuditSigningKeys(raw: string): AuditSigningKey[] | string {
  const entries = raw.split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0) return "must hold at least one id:base64 key";
  const keys: AuditSigningKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(":");
    const id = colon > 0 ? entry.slice(0, colon) : "";
    if (!ID_PATTERN.test(id)) return `entry ${index + 1} must be id:base64, the id 1-32 letters, digits, - or _`;
    const encoded = entry.slice(colon + 1);
    const seed = Buffer.from(encoded, "base64");
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) || seed.length !== SEED_BYTES)
      return `key "${id}" must be a ${SEED_BYTES}-byte Ed25519 private key in base64 (\`npm run audit -- new-key\` prints one)`;
    if (keys.some((k) => k.id === id)) return `key id "${id}" appears twice`;
    keys.push({ id, seed });
  }
  return keys;
}
