// The start every database command of scripts/ shares: the .env files the app reads, the settings
// checked as the app checks them (a bad one is named, plainly), the database made ready (the
// embedded default started and migrated), and DATABASE_URL pointed at it before
// lib/core/config/env.ts reads it, once.
import nextEnv from "@next/env"; // CommonJS without detectable named exports
import { parseEnv } from "../lib/core/config/env";
import { prepareDatabase } from "./dev/prepare-database";

export async function openScriptDatabase(
  fail: (message: string) => never,
  options: { directDatabaseUrl?: boolean } = {},
): Promise<{ stop: () => Promise<void>; disconnectDb: () => Promise<void> }> {
  nextEnv.loadEnvConfig(process.cwd(), false, { info: () => {}, error: console.error });
  let settings;
  try {
    settings = parseEnv(process.env);
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  const database = await prepareDatabase({
    databaseUrl: settings.DATABASE_URL,
    directDatabaseUrl: options.directDatabaseUrl ? settings.DIRECT_DATABASE_URL : undefined,
  }).catch((error: unknown) => fail(`database not ready: ${error instanceof Error ? error.message : String(error)}`));
  process.env.DATABASE_URL = database.databaseUrl;
  const { disconnectDb } = await import("../lib/core/db/client");
  return { stop: () => database.stop(), disconnectDb };
}
