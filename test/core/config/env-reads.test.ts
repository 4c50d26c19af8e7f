// Settings are read in one place, lib/core/config/env.ts. The app, the domain and the UI never read
// process.env; the tooling reads it only where this list says why.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");

/** Tooling that reads the environment itself, and why it may. */
const TOOLING_READERS: Record<string, string> = {
  "scripts/boot.ts": "hands the whole environment to parseEnv, and passes it on to Next and the companions",
  "scripts/migrate.ts":
    "DATABASE_URL and DIRECT_DATABASE_URL only: migrations run before the app's other settings exist (a deploy step)",
  "scripts/diff.ts": "DATABASE_URL only, like db:migrate",
  "scripts/event.ts": "hands the environment to parseEnv",
  "tooling/script-database.ts":
    "hands the environment to parseEnv, then sets DATABASE_URL for lib/core/config/env.ts (purge, alerts, audit, secrets, readiness, recover)",
  "server/serve.ts": "hands the environment to parseEnv; sets NODE_ENV=production for Next before it loads",
  "server/standalone-start.ts":
    "hands the environment to parseEnv; sets NODE_ENV=production and the built config for Next before it loads",
  "tooling/dev/embedded-postgres.ts": "passes the environment on to the PostgreSQL child process",
};

function files(dir: string): string[] {
  const full = path.join(root, dir);
  if (statSync(full).isFile()) return [dir];
  return readdirSync(full).flatMap((entry) => (entry === "generated" ? [] : files(path.join(dir, entry))));
}

const readsEnv = (file: string) => /\bprocess\.env\b/.test(readFileSync(path.join(root, file), "utf8"));
const sources = (dirs: string[]) => dirs.flatMap(files).filter((file) => /\.tsx?$/.test(file));

describe("one environment reader", () => {
  it("nothing in lib/, app/ or components/ (or the root modules Next loads) reads process.env but lib/core/config/env.ts", () => {
    const readers = sources(["lib", "http", "app", "components", "auth.ts", "auth-cookies.ts", "proxy.ts"]).filter(
      readsEnv,
    );
    expect(readers).toEqual(["lib/core/config/env.ts"]);
  });

  it("in scripts/, server/ and tooling/, only the listed tools read it", () => {
    const readers = sources(["scripts", "server", "tooling"]).filter(readsEnv).sort();
    expect(readers).toEqual(Object.keys(TOOLING_READERS).sort());
  });
});
