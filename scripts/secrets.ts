// `npm run secrets -- new-key [id]`: prints a fresh SECRETS_ENCRYPTION_KEYS entry (id:base64).
// `npm run secrets -- status`: how many stored secrets each key sealed (and how many are clear).
// `npm run secrets -- rotate`: re-seals every stored secret under the newest key (the first
// entry); afterwards an older key no longer listed in `status` can be removed from the setting.
// Rotating a key: put the new entry FIRST, keep the old ones, restart every process, run
// `rotate`, then drop the old entries (docs/security.md, "Secrets at rest").
// On DATABASE_URL, or, when it is unset, on the embedded PostgreSQL in .data/postgres, like `npm run purge`.
import { randomBytes } from "node:crypto";
import { KEY_BYTES } from "../lib/core/config/encryption-keys";
import { openScriptDatabase } from "../tooling/script-database";

const usage = "usage: npm run secrets -- new-key [id] | status | rotate";

function fail(message: string): never {
  process.stderr.write(`keyhook: ${message}\n`);
  process.exit(1);
}

const command = process.argv[2];
if (command === "new-key") {
  const id = process.argv[3] ?? `k${new Date().toISOString().slice(0, 10).replaceAll("-", "")}`;
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(id)) fail("the key id must be 1-32 letters, digits, - or _");
  console.log(`${id}:${randomBytes(KEY_BYTES).toString("base64")}`);
  process.exit(0);
}
if (command !== "status" && command !== "rotate") fail(usage);

const { stop: stopDatabase, disconnectDb } = await openScriptDatabase(fail, { directDatabaseUrl: true });

const describe = (inventory: { total: number; clear: number; byKey: Record<string, number> }) =>
  [
    `${inventory.total} stored secret(s)`,
    ...Object.entries(inventory.byKey).map(([id, count]) => `${count} sealed with key "${id}"`),
    ...(inventory.clear ? [`${inventory.clear} not encrypted`] : []),
  ].join(", ");

let exitCode = 1;
try {
  const { checkStoredSecrets, rotateStoredSecrets } = await import("../lib/operations/secrets/stored-secrets");
  const { encryptionKeys } = await import("../lib/core/secrets/secret-box");
  const newest = encryptionKeys()[0]!.id;
  if (command === "status") {
    console.log(`${describe(await checkStoredSecrets())}; new writes use key "${newest}"`);
  } else {
    const { resealed, after } = await rotateStoredSecrets();
    console.log(`re-sealed ${resealed} channel(s) under key "${newest}": ${describe(after)}`);
  }
  exitCode = 0;
} catch (error) {
  const { AppError } = await import("../lib/core/errors");
  console.error(
    `keyhook: ${command} failed: ${error instanceof AppError ? error.publicMessage : error instanceof Error ? error.message : String(error)}`,
  );
} finally {
  await disconnectDb();
  await stopDatabase();
}
process.exit(exitCode);
