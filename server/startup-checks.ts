// What every Keyhook process checks once at start, after its settings parse and before it serves
// or works, so that a setting that cannot work is one plain line then and not a failure under
// load or on the first alert: both database URLs against poolers nobody declared
// (tooling/migrations/pooler-probe.ts), and the stored secrets against SECRETS_ENCRYPTION_KEYS
// (lib/core/secrets). Throws an Error whose message is that line; returns notices worth printing.
import { disconnectDb } from "../lib/core/db/client";
import type { Env } from "../lib/core/config/env";
import { checkStoredSecrets } from "../lib/operations/secrets/stored-secrets";
import { assertDatabaseUrls } from "../tooling/migrations/pooler-probe";

export async function runStartupChecks(
  config: Pick<Env, "DATABASE_URL" | "DIRECT_DATABASE_URL" | "MFA_REQUIRED_ROLES">,
): Promise<string[]> {
  if (!config.DATABASE_URL) throw new Error("invalid setting DATABASE_URL: is not set");
  await assertDatabaseUrls({ databaseUrl: config.DATABASE_URL, directDatabaseUrl: config.DIRECT_DATABASE_URL });
  // The client is released after: in the server process Next's bundle must create its own (its
  // copy of Prisma's runtime does not recognise another copy's SQL fragments).
  const secrets = await checkStoredSecrets().finally(disconnectDb);
  return [
    ...(secrets.clear > 0
      ? [`${secrets.clear} stored secret(s) are not encrypted yet: run \`npm run secrets -- rotate\``]
      : []),
    // Allowed (a deployment behind an SSO that enforces MFA itself), but never silently.
    ...(config.MFA_REQUIRED_ROLES.length === 0
      ? ["warning: MFA_REQUIRED_ROLES is empty: no role must hold a second factor"]
      : []),
  ];
}
