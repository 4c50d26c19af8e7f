// `npm run test:deploy`: tests of the deployable artifact (.next/standalone, built first), run
// as real processes one file at a time (each starts the production server). Same aliases and
// database setup as vitest.config.ts; only which files run differs.
import { defineConfig } from "vitest/config";
import base from "./vitest.config";

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/deploy/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    fileParallelism: false,
    testTimeout: 120_000,
  },
});
