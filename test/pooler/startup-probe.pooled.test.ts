// A pooler behind DATABASE_URL that does not say so (`pgbouncer=true`) with DIRECT_DATABASE_URL
// set: before, only the migration URL was probed and the app started, then failed under load
// with `prepared statement "keyhook_N" already exists`. Now both URLs are probed at start, by the
// app and by the worker, through the real PgBouncer.
import "../support/via-pooler";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { assertDatabaseUrls } from "@/tooling/migrations/pooler-probe";
import { directUrl, pooledUrl } from "../support/via-pooler";

const undeclared = () => {
  const url = new URL(pooledUrl());
  url.searchParams.delete("pgbouncer");
  return url.toString();
};

function start(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, ["--conditions=react-server", "--import", "tsx", ...args], {
    env: { ...process.env, KEYHOOK_ALLOW_DEV_SECRET: "1", LOG_LEVEL: "warn", PORT: "1", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("both database URLs are probed at start", () => {
  it("the declared setup passes; an undeclared pooler in either URL is refused naming it", async () => {
    await expect(
      assertDatabaseUrls({ databaseUrl: pooledUrl(), directDatabaseUrl: directUrl() }),
    ).resolves.toBeUndefined();
    await expect(
      assertDatabaseUrls({ databaseUrl: directUrl(), directDatabaseUrl: directUrl() }),
    ).resolves.toBeUndefined();
    await expect(assertDatabaseUrls({ databaseUrl: undeclared(), directDatabaseUrl: directUrl() })).rejects.toThrow(
      "invalid setting DATABASE_URL: reaches a connection pooler (it refuses the startup parameter `options`): add pgbouncer=true to DATABASE_URL",
    );
    await expect(assertDatabaseUrls({ databaseUrl: pooledUrl(), directDatabaseUrl: undeclared() })).rejects.toThrow(
      "invalid setting DIRECT_DATABASE_URL: reaches a connection pooler (it refuses the startup parameter `options`), not PostgreSQL itself",
    );
  });

  it.each([
    ["the app (npm start)", ["scripts/boot.ts", "start"], "keyhook: "],
    ["the worker", ["server/worker.ts"], "keyhook worker: "],
  ])(
    "%s refuses DATABASE_URL on the pooler without pgbouncer=true in one line",
    (_name, args, prefix) => {
      const result = start(args, { DATABASE_URL: undeclared(), DIRECT_DATABASE_URL: directUrl() });
      expect(result.status, result.stdout + result.stderr).toBe(1);
      expect(result.stderr.trim()).toBe(
        `${prefix}invalid setting DATABASE_URL: reaches a connection pooler (it refuses the startup parameter \`options\`): add pgbouncer=true to DATABASE_URL`,
      );
    },
    60_000,
  );
});
