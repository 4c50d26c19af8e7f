// `npm run test:e2e` runs the browser tests against the production build. Rebuild only when a
// source file is newer than the last build: `next build` takes minutes on a small machine.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const SOURCES = [
  "app",
  "components",
  "lib",
  "http",
  "public",
  "auth.ts",
  "auth-cookies.ts",
  "proxy.ts",
  "instrumentation.ts",
  "next.config.ts",
  "server",
  "prisma",
  "postcss.config.mjs",
  "package.json",
  "tsconfig.json",
];
const SKIP = new Set(["node_modules", ".next", "generated"]);

function newestMtime(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const child of readdirSync(entry)) {
    if (!SKIP.has(child)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  }
  return newest;
}

const buildId = ".next/BUILD_ID";
const builtAt = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
const changedAt = Math.max(...SOURCES.map(newestMtime));
if (builtAt > changedAt && process.env.E2E_FORCE_BUILD !== "1") {
  console.log("e2e: production build is up to date");
} else {
  console.log("e2e: building the production app (next build)…");
  const result = spawnSync(process.execPath, [path.join("node_modules", "next", "dist", "bin", "next"), "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // The deployable folder (.next/standalone) is completed as `npm run build` does.
  const standalone = spawnSync(process.execPath, ["--import", "tsx", "server/build-standalone.ts"], {
    stdio: "inherit",
  });
  if (standalone.status !== 0) process.exit(standalone.status ?? 1);
}
