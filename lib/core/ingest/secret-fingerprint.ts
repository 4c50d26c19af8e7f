// How a signing secret is named anywhere outside the env: the first 8 hex characters of its
// SHA-256. Enough to tell secrets apart (Settings, receipts), useless for signing.
import { createHash } from "node:crypto";

const cache = new Map<string, string>();

export function secretFingerprint(secret: string): string {
  let fingerprint = cache.get(secret);
  if (!fingerprint) {
    fingerprint = createHash("sha256").update(secret, "utf8").digest("hex").slice(0, 8);
    cache.set(secret, fingerprint);
  }
  return fingerprint;
}
