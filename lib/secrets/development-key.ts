import "server-only";
// Outside production an unset SECRETS_ENCRYPTION_KEYS means this key, generated once under .data/
// (beside the embedded PostgreSQL whose rows it encrypts), so `npm run dev` and the tests need no
// setup. Created without overwriting: processes starting together all end up with the same key.
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { KEY_BYTES } from "./encryption-keys";

export const DEVELOPMENT_KEY_FILE = path.join(".data", "secrets-encryption-key");

export function developmentKeys(): string {
  const file = path.resolve(DEVELOPMENT_KEY_FILE);
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
