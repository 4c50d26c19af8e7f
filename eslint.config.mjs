import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTypescript,
  {
    ignores: [
      ".next/**",
      ".data/**",
      "lib/generated/**",
      "node_modules/**",
      "next-env.d.ts",
      "bench/results/**",
      "e2e/artifacts/**",
    ],
  },
  {
    // lib/ is the domain: it depends neither on the web framework nor on the launcher and
    // migration machinery (tooling/ may import lib/, never the reverse).
    files: ["lib/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["next", "next/*", "next-auth", "next-auth/*"],
              message: "lib/ never imports next/*; keep framework glue in app/.",
            },
            {
              group: ["**/tooling/**", "@/tooling/**"],
              message: "lib/ never imports tooling/; move what the app needs at run time into lib/.",
            },
          ],
        },
      ],
    },
  },
  {
    // Every browser test fails on a Content-Security-Policy violation or a console error: that
    // check lives in the `test` of e2e/support.ts, so no spec may take Playwright's own.
    files: ["e2e/**/*.spec.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@playwright/test",
              importNames: ["test", "expect"],
              message: 'import { test, expect } from "./support": its test fails on CSP violations and console errors.',
            },
          ],
        },
      ],
    },
  },
];

export default config;
