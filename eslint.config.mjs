import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

// Next's private modules (next/dist/*) and its private globals and environment (__NEXT_*) are not
// an API: a release may rename or reshape them, and a security fix must not wait on re-checking a
// copy of Next's internals. Only documented entry points (`next`, `next/server`, …) are used; the
// CLI is found through next's package.json `bin` (tooling/package-bin.ts). Caught in every form:
// import/export, require, import(), require.resolve and any other string naming the folder, and
// any __NEXT_* name or string (test/architecture/next-internals.test.ts checks the rule).
const nextPrivate = {
  group: ["next/dist", "next/dist/**"],
  message: "next/dist/* is Next's private code; use its documented API (docs/decisions/0024).",
};
const nextPrivatePath = /(^|[\\/])next[\\/]dist([\\/]|$)/.source;
const nextPrivateMessage = "no path into next/dist: Next's private code (docs/decisions/0024).";
const nextPrivateNameMessage = "__NEXT_* is Next's private state; use a documented option (docs/decisions/0024).";

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
    files: ["**/*.{js,mjs,cjs,ts,mts,cts,tsx,jsx}"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [nextPrivate] }],
      "no-restricted-syntax": [
        "error",
        { selector: `Literal[value=/${nextPrivatePath}/]`, message: nextPrivateMessage },
        { selector: `TemplateElement[value.raw=/${nextPrivatePath}/]`, message: nextPrivateMessage },
        { selector: "Identifier[name=/^__NEXT_/]", message: nextPrivateNameMessage },
        { selector: "Literal[value=/^__NEXT_/]", message: nextPrivateNameMessage },
      ],
    },
  },
  // The rule's own definition and its test name what it forbids.
  {
    files: ["eslint.config.mjs", "test/architecture/next-internals.test.ts"],
    rules: { "no-restricted-syntax": "off" },
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
            nextPrivate,
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
