import "server-only";
// Outside production an unset SECRETS_ENCRYPTION_KEYS (or AUDIT_SIGNING_KEY) means a key generated
// once under .data/ (beside the embedded PostgreSQL whose rows it serves), so `npm run dev` and the
// tests need no setup. Created without overwriting: processes starting together all end up with
// the same key.
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { KEY_BYTES } from "../config/encryption-keys";

// Read at run time only: the build's file tracer would copy a developer's keys into the artifact.
const DEVELOPMENT_KEY_FILE = path.join(/* turbopackIgnore: true */ ".data", "secrets-encryption-key");
export const DEVELOPMENT_AUDIT_KEY_FILE = path.join(/* turbopackIgnore: true */ ".data", "audit-signing-key");

export function developmentKeys(): string {
  return developmentKeyFile(DEVELOPMENT_KEY_FILE);
}

/** An `dev:<base64 of 32 random bytes>` entry, read from `relativeFile` or created there once. */
export function developmentKeyFile(relativeFile: string): string {
  const file = path.resolve(relativeFile);
  try {
    return readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(draft, `dev:${randomBytes(KEY_BYTES).toString("base64")}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file); // fails if another process got there first: theirs is the key
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  return readFileSync(file, "utf8").trim();
}
