import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTypescript,
  { ignores: [".next/**", ".data/**", "lib/generated/**", "node_modules/**", "next-env.d.ts", "bench/results/**", "e2e/artifacts/**"] },
  {
    // lib/ is the domain: it must not depend on the web framework (DESIGN.md "Shape of the code").
    files: ["lib/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["next", "next/*", "next-auth", "next-auth/*"], message: "lib/ never imports next/*; keep framework glue in app/." }] }],
    },
  },
];

export default config;
