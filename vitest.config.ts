import { availableParallelism } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";
import { LongestFirst } from "./test/support/longest-first";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      "server-only": path.resolve(import.meta.dirname, "test/support/server-only-stub.ts"),
    },
  },
  test: {
    include: ["test/**/*.test.ts", "lib/**/*.test.ts"],
    // Need the production build: `npm run test:deploy` (vitest.deploy.config.ts).
    exclude: ["test/deploy/**", "**/node_modules/**"],
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/per-file-database.ts"],
    // Each test file gets its own database cloned from a migrated template, so files run in
    // parallel on the one embedded PostgreSQL server without seeing each other's rows.
    pool: "forks",
    // Vitest's default is one fork fewer than the cores: a single fork on a 2-core machine, which
    // leaves a core idle while files wait on PostgreSQL and child processes. Two there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongestFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: "test", LOG_LEVEL: "silent", NEXT_TELEMETRY_DISABLED: "1" },
  },
});
