// The app runs from a private copy of the production build. The checkout is shared: another
// `npm run build` replaces `.next` while we run, and a restart in the middle of that finds no
// build ("Could not find a production build") — a failure of the harness, not of the app. The
// copy holds `.next` (without its caches) and symlinks to what `next start` and the launcher read
// from the working directory; modules still resolve to the checkout's node_modules.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import path from "node:path";

const SHARED = ["node_modules", "package.json", "next.config.ts", "tsconfig.json", "prisma", "public", "server"];
const NOT_NEEDED = new Set(["cache", "dev", "diagnostics", "trace", "standalone"]);

const readBuildId = () => {
  try {
    return readFileSync(".next/BUILD_ID", "utf8").trim();
  } catch {
    return null;
  }
};

/** Waits for a build someone else is running, builds when there is none; returns its id. */
async function completeBuild(log: (line: string) => void): Promise<string> {
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    const id = readBuildId();
    if (id) return id;
    // `.next` changed in the last minutes but has no BUILD_ID yet: a build is running.
    const building = existsSync(".next") && Date.now() - statSync(".next").mtimeMs < 5 * 60_000;
    if (!building) {
      log("no production build yet, running `npm run build` …");
      const build = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
      if (build.status !== 0) throw new Error("npm run build failed");
      continue;
    }
    if (Date.now() > deadline) throw new Error("waited 5 minutes for another `next build` to finish");
    log("another `next build` seems to be running; waiting for it …");
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
}

export async function snapshotProductionBuild(options: {
  dir: string;
  log: (line: string) => void;
}): Promise<{ appDir: string; buildId: string }> {
  const checkout = process.cwd();
  const appDir = path.resolve(options.dir);
  for (let attempt = 1; ; attempt++) {
    const buildId = await completeBuild(options.log);
    rmSync(appDir, { recursive: true, force: true });
    mkdirSync(appDir, { recursive: true });
    try {
      cpSync(".next", path.join(appDir, ".next"), {
        recursive: true,
        filter: (source) => !NOT_NEEDED.has(path.relative(".next", source).split(path.sep)[0]!),
      });
    } catch (error) {
      // The build was being replaced under us; take the next one.
      if (attempt >= 3) throw error;
      continue;
    }
    // The same build before and after the copy: nothing was replaced halfway.
    if (readBuildId() === buildId && readFileSync(path.join(appDir, ".next/BUILD_ID"), "utf8").trim() === buildId) {
      for (const name of SHARED) if (existsSync(name)) symlinkSync(path.join(checkout, name), path.join(appDir, name));
      return { appDir, buildId };
    }
    if (attempt >= 3) throw new Error("the production build kept changing while it was copied");
  }
}
