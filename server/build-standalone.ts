// Completes `next build`'s standalone output (.next/standalone) into the deployable artifact:
// a folder that runs with `node keyhook-start.mjs` and nothing else from the checkout.
//   - .next/static (and public/ when there is one): Next leaves them out for a CDN to serve;
//   - keyhook-start.mjs: settings check + migrations + production server, one esbuild bundle;
//     `next` stays external (it is in the traced node_modules, as server.js needs it);
//   - keyhook-worker.mjs: the outbox/purge worker (`npm run worker`) as one bundle;
//   - and, outside the folder, .next/keyhook-serve.mjs: `npm start`'s server bundled the same way;
//   - prisma/migrations + prisma/schema.prisma and the schema engine's .wasm, which the
//     migration code finds as `prisma/build/schema_engine_bg.wasm` beside a stub package.json.
// `npm run build` runs it after `next build`; the Dockerfile copies the result.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { build, type BuildOptions } from "esbuild";

const out = path.resolve(".next/standalone");
if (!existsSync(path.join(out, "server.js"))) {
  console.error(
    'build-standalone: .next/standalone/server.js is missing: run `next build` first (next.config.ts sets output: "standalone")',
  );
  process.exit(1);
}

cpSync(".next/static", path.join(out, ".next/static"), { recursive: true });
if (existsSync("public")) cpSync("public", path.join(out, "public"), { recursive: true });
cpSync("prisma/migrations", path.join(out, "prisma/migrations"), { recursive: true });
cpSync("prisma/schema.prisma", path.join(out, "prisma/schema.prisma"));

const require = createRequire(import.meta.url);
const prismaDir = path.dirname(require.resolve("prisma/package.json"));
const engineDir = path.join(out, "node_modules/prisma");
mkdirSync(path.join(engineDir, "build"), { recursive: true });
cpSync(path.join(prismaDir, "build/schema_engine_bg.wasm"), path.join(engineDir, "build/schema_engine_bg.wasm"));
const { version } = JSON.parse(readFileSync(path.join(prismaDir, "package.json"), "utf8")) as { version: string };
writeFileSync(
  path.join(engineDir, "package.json"),
  JSON.stringify(
    { name: "prisma", version, private: true, description: "only the schema engine's wasm, for keyhook-start.mjs" },
    null,
    2,
  ) + "\n",
);

// Shared by both bundles: ESM for Node 20, `next` left to the node_modules beside the build.
const bundleOptions: BuildOptions = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // lib/ marks server modules with `import "server-only"`, which resolves to nothing here.
  conditions: ["react-server"],
  // next: the traced copy in the folder. pg-native: pg's optional native binding, never used.
  external: ["next", "pg-native"],
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __keyhookRequire } from 'node:module'; const require = __keyhookRequire(import.meta.url);",
  },
  logLevel: "warning",
  legalComments: "none",
};

await build({
  ...bundleOptions,
  entryPoints: { "keyhook-start": "server/standalone-start.ts", "keyhook-worker": "server/worker.ts" },
  outdir: out,
  outExtension: { ".js": ".mjs" },
});
// `npm start`'s server (server/serve.ts) as plain JavaScript beside the build: run through tsx
// its loader hooks see every import() Next makes per request (a round trip to tsx's hooks
// thread each time); scripts/boot.ts runs this bundle when it is there.
await build({ ...bundleOptions, entryPoints: ["server/serve.ts"], outfile: ".next/keyhook-serve.mjs" });
console.log(
  `build-standalone: ${path.relative(process.cwd(), out)} is ready: node keyhook-start.mjs (worker: node keyhook-worker.mjs)`,
);
