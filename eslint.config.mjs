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
];

export default config;
