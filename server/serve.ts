// The server process `npm start` runs (scripts/boot.ts start spawns it once the database is
// migrated): the production build in ./.next, served by server/production-server.ts. Started
// without the react-server condition, as Next must be.
import { parseEnv } from "../lib/core/config/env";
import { startProductionServer } from "./production-server";

(process.env as Record<string, string>).NODE_ENV = "production";
let config: ReturnType<typeof parseEnv>;
try {
  config = parseEnv(process.env);
} catch (error) {
  console.error(`keyhook: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
await startProductionServer({
  dir: process.cwd(),
  port: config.PORT,
  hostname: config.LISTEN_HOST,
  drainMs: config.SHUTDOWN_DRAIN_MS,
  workers: config.WEB_CONCURRENCY,
});
