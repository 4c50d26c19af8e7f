// Browser tests against the PRODUCTION build (`next build` first; `npm run test:e2e` does both),
// served by the same launcher as `npm start` on its own port, with its own fresh embedded
// PostgreSQL data dir and the demo districts and users seeded.
import path from "node:path";
import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 4531);
// The demo authenticator's spent codes, shared by every worker process of this run (test/support/demo-totp.ts).
process.env.KEYHOOK_DEMO_TOTP_STATE ??= path.resolve("e2e/artifacts/demo-totp-steps.json");
// localhost, not 127.0.0.1: a passkey's relying party must be a host name (NEXTAUTH_URL gives it).
const baseURL = `http://localhost:${port}`;

export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/artifacts/test-results",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // One server, one database: journeys run one after another.
  workers: 1,
  fullyParallel: false,
  reporter: [["list"]],
  use: {
    baseURL,
    headless: true,
    video: "off",
    trace: "off",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: {
    // A fresh database every run, so the journeys start from the demo state.
    command: "rm -rf .data/e2e && exec node --conditions=react-server --import tsx scripts/boot.ts start",
    url: `http://127.0.0.1:${port}/signin`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
    env: {
      PORT: String(port),
      KEYHOOK_DATA_DIR: ".data/e2e",
      KEYHOOK_PG_PORT: String(Number(process.env.E2E_PG_PORT ?? 54531)),
      KEYHOOK_SEED_DEMO: "1",
      // The public dev webhook and session secrets: the specs sign deliveries with the former.
      KEYHOOK_ALLOW_DEV_SECRET: "1",
      NEXTAUTH_URL: baseURL,
      // No provider runs: the Deliveries page must show its "unreachable / not registered" state,
      // and the specs play the provider's part by posting signed webhooks themselves.
      PROVIDER_URL: `http://127.0.0.1:${Number(process.env.E2E_PROVIDER_PORT ?? 4539)}`,
      KEYHOOK_WITH_SIMULATOR: "0",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
