// `npm run test:deploy`: tests of the deployable artifact (.next/standalone, built first), run
// as real processes, as many files at a time as vitest.config.ts runs: each starts its own
// production server on its own port (test/deploy/ports.test.ts). Same aliases and database setup.
import { defineConfig } from "vitest/config";
import base from "./vitest.config";

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/deploy/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 120_000,
  },
});
