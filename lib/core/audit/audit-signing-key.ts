import "server-only";
// The keys of AUDIT_SIGNING_KEY (lib/core/config/audit-signing-keys.ts) as node:crypto key objects:
// the newest signs the checkpoints, every one is published (GET /api/audit/public-key, docs/audit.md).
// Outside production an unset setting means a key generated once under .data/.
import type { KeyObject } from "node:crypto";
import { env } from "../config/env";
import { AppError } from "../errors";
import { parseAuditSigningKeys } from "../config/audit-signing-keys";
import { DEVELOPMENT_AUDIT_KEY_FILE, developmentKeyFile } from "../secrets/development-key";
import { privateKeyFromSeed, rawPublicKey } from "./audit-checkpoint";

type AuditKey = { id: string; privateKey: KeyObject; publicKey: string };

let cache: { raw: string; keys: AuditKey[] } | undefined;

/** Newest first. */
export function auditSigningKeys(): AuditKey[] {
  const raw = env().AUDIT_SIGNING_KEY ?? developmentKeyFile(DEVELOPMENT_AUDIT_KEY_FILE);
  if (cache?.raw !== raw) {
    const parsed = parseAuditSigningKeys(raw);
    if (typeof parsed === "string")
      throw new AppError("invalid_setting", `invalid setting AUDIT_SIGNING_KEY: ${parsed}`);
    cache = {
      raw,
      keys: parsed.map(({ id, seed }) => {
        const privateKey = privateKeyFromSeed(seed);
        return { id, privateKey, publicKey: rawPublicKey(privateKey) };
      }),
    };
  }
  return cache.keys;
}

/** What GET /api/audit/public-key publishes: no private material. */
export function publishedAuditKeys(): { id: string; algorithm: "Ed25519"; public_key: string; signing: boolean }[] {
  return auditSigningKeys().map((key, index) => ({
    id: key.id,
    algorithm: "Ed25519",
    public_key: key.publicKey,
    signing: index === 0,
  }));
}
