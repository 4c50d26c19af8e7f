import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { DEV_WEBHOOK_SECRET, parseEnv } from "@/lib/core/config/env";

const message = (source: Record<string, string>) => {
  try {
    parseEnv(source);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
};

describe("settings", () => {
  it("drains 10 s at SIGTERM and traces nothing unless told", () => {
    const config = parseEnv({});
    expect(config.SHUTDOWN_DRAIN_MS).toBe(10_000);
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
  });

  it("keeps the audit log and a key's history 400 days, sent outbox rows 30, alerts, gaps and runs 90", () => {
    expect(parseEnv({})).toMatchObject({
      AUDIT_RETENTION_DAYS: 400,
      KEY_HISTORY_RETENTION_DAYS: 400,
      OUTBOX_RETENTION_DAYS: 30,
      ALERT_RETENTION_DAYS: 90,
      GAP_RETENTION_DAYS: 90,
      RUN_HISTORY_RETENTION_DAYS: 90,
      SIGN_IN_FAILURE_RETENTION_DAYS: 90,
    });
  });

  it("runs one server process unless WEB_CONCURRENCY says more", () => {
    expect(parseEnv({}).WEB_CONCURRENCY).toBe(1);
    expect(parseEnv({ WEB_CONCURRENCY: "4" }).WEB_CONCURRENCY).toBe(4);
  });

  it("defaults to the dev secret outside production", () => {
    expect(parseEnv({ NODE_ENV: "development" }).WEBHOOK_SECRETS).toEqual([DEV_WEBHOOK_SECRET]);
  });

  it("splits several secrets on spaces and commas (secret rotation)", () => {
    const other = "whsec_" + Buffer.from("another-secret-for-rotation").toString("base64");
    expect(parseEnv({ WEBHOOK_SECRETS: `${DEV_WEBHOOK_SECRET}, ${other}` }).WEBHOOK_SECRETS).toEqual([
      DEV_WEBHOOK_SECRET,
      other,
    ]);
  });

  it.each([
    [{ PORT: "abc" }, /^invalid setting PORT: must be a whole number$/],
    [{ RETENTION_DAYS: "14.5" }, /^invalid setting RETENTION_DAYS: must be a whole number$/],
    [
      { SHUTDOWN_DRAIN_MS: "5000" },
      /^invalid setting SHUTDOWN_DRAIN_MS: must be longer than INGEST_TX_TIMEOUT_MS \(5000 ms\)/,
    ],
    [
      { SHUTDOWN_DRAIN_MS: "20000", INGEST_TX_TIMEOUT_MS: "30000" },
      /^invalid setting SHUTDOWN_DRAIN_MS: must be longer than INGEST_TX_TIMEOUT_MS \(30000 ms\)/,
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" },
      /^invalid setting OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\):\/\/ URL/,
    ],
    [{ PORT: "70000" }, /^invalid setting PORT: must be at most 65535/],
    [{ AUDIT_RETENTION_DAYS: "3" }, /^invalid setting AUDIT_RETENTION_DAYS: must be at least 7$/],
    [{ OUTBOX_RETENTION_DAYS: "0" }, /^invalid setting OUTBOX_RETENTION_DAYS: must be at least 1$/],
    [{ DATABASE_URL: "mysql://x" }, /^invalid setting DATABASE_URL: must be a postgresql:\/\/ URL/],
    [
      { DATABASE_URL: "postgresql://u:p@pooler:6432/app?pgbouncer=true" },
      /^invalid setting DIRECT_DATABASE_URL: is required when DATABASE_URL goes through a connection pooler \(pgbouncer=true\)/,
    ],
    [
      {
        DATABASE_URL: "postgresql://u:p@pooler:6432/app?pgbouncer=true",
        DIRECT_DATABASE_URL: "postgresql://u:p@db:5432/app?pgbouncer=true",
      },
      /^invalid setting DIRECT_DATABASE_URL: must reach PostgreSQL itself/,
    ],
    [{ DIRECT_DATABASE_URL: "mysql://x" }, /^invalid setting DIRECT_DATABASE_URL: must be a postgresql:\/\/ URL/],
    [{ MIGRATION_LOCK_TIMEOUT_MS: "10" }, /^invalid setting MIGRATION_LOCK_TIMEOUT_MS: must be at least 1000/],
    [
      { WEBHOOK_SECRETS: "not-a-secret" },
      /^invalid setting WEBHOOK_SECRETS: "not-a-secr…" is not a whsec_<base64> secret/,
    ],
    [
      { NODE_ENV: "production", NEXTAUTH_SECRET: "x".repeat(40) },
      /^invalid setting WEBHOOK_SECRETS: is required in production/,
    ],
    [
      { RETENTION_DAYS: "2", PROVIDER_RETRY_HORIZON_HOURS: "28" },
      /^invalid setting RETENTION_DAYS: retention window 2 days \(48 h\) must be longer than the provider retry horizon 28 h \+ margin 24 h = 52 h/,
    ],
    [{ KEYHOOK_WITH_SIMULATOR: "yes" }, /^invalid setting KEYHOOK_WITH_SIMULATOR: /],
    [{ WEB_CONCURRENCY: "two" }, /^invalid setting WEB_CONCURRENCY: must be a whole number$/],
    [{ WEB_CONCURRENCY: "0" }, /^invalid setting WEB_CONCURRENCY: must be at least 1$/],
    [{ WEB_CONCURRENCY: "1.5" }, /^invalid setting WEB_CONCURRENCY: must be a whole number$/],
    [{ KEYHOOK_ALLOW_DEV_SECRET: "true" }, /^invalid setting KEYHOOK_ALLOW_DEV_SECRET: /],
    [
      { NODE_ENV: "production", NEXTAUTH_SECRET: "x".repeat(40), WEBHOOK_SECRETS: DEV_WEBHOOK_SECRET },
      /^invalid setting SECRETS_ENCRYPTION_KEYS: is required in production \(`npm run secrets -- new-key` prints one\)$/,
    ],
    [
      { SECRETS_ENCRYPTION_KEYS: `k1:${Buffer.alloc(16).toString("base64")}` },
      /^invalid setting SECRETS_ENCRYPTION_KEYS: key "k1" must be 32 random bytes in base64/,
    ],
    [
      { SECRETS_ENCRYPTION_KEYS: "no-colon-here" },
      /^invalid setting SECRETS_ENCRYPTION_KEYS: entry 1 must be id:base64/,
    ],
    [
      {
        SECRETS_ENCRYPTION_KEYS: `a:${Buffer.alloc(32).toString("base64")} a:${Buffer.alloc(32, 1).toString("base64")}`,
      },
      /^invalid setting SECRETS_ENCRYPTION_KEYS: key id "a" appears twice$/,
    ],
    [
      {
        NODE_ENV: "production",
        NEXTAUTH_SECRET: "x".repeat(40),
        WEBHOOK_SECRETS: DEV_WEBHOOK_SECRET,
        SECRETS_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32).toString("base64")}`,
      },
      /^invalid setting AUDIT_SIGNING_KEY: is required in production \(`npm run audit -- new-key` prints one\)$/,
    ],
    [
      { AUDIT_SIGNING_KEY: `a1:${Buffer.alloc(31).toString("base64")}` },
      /^invalid setting AUDIT_SIGNING_KEY: key "a1" must be a 32-byte Ed25519 private key in base64/,
    ],
    [{ WEBHOOK_PUBLIC_KEYS: "whpk_short" }, /^invalid setting WEBHOOK_PUBLIC_KEYS: "whpk_short…" is not a whpk_/],
    [{ REFUSED_RECEIPTS_PER_MINUTE: "-1" }, /^invalid setting REFUSED_RECEIPTS_PER_MINUTE: must be at least 0$/],
  ])("refuses %o with a message naming the setting", (source, expected) => {
    expect(message(source)).toMatch(expected);
  });

  it("WEBHOOK_PUBLIC_KEYS alone is a credential: production needs no secret, and the public dev secret is not accepted", () => {
    const key = `whpk_${Buffer.alloc(32, 7).toString("base64")}`;
    const config = parseEnv({
      NODE_ENV: "production",
      NEXTAUTH_SECRET: "x".repeat(40),
      WEBHOOK_PUBLIC_KEYS: key,
      SECRETS_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32).toString("base64")}`,
      AUDIT_SIGNING_KEY: `a1:${Buffer.alloc(32, 1).toString("base64")}`,
    });
    expect(config.WEBHOOK_PUBLIC_KEYS).toEqual([key]);
    expect(config.WEBHOOK_SECRETS).toEqual([]);
  });

  it("KEYHOOK_ALLOW_DEV_SECRET=1 lets production run on the public dev secrets (browser tests only)", () => {
    const config = parseEnv({ NODE_ENV: "production", KEYHOOK_ALLOW_DEV_SECRET: "1" });
    expect(config.WEBHOOK_SECRETS).toEqual([DEV_WEBHOOK_SECRET]);
    expect(message({ NODE_ENV: "production", KEYHOOK_ALLOW_DEV_SECRET: "0" })).toMatch(
      /^invalid setting NEXTAUTH_SECRET: is required in production/,
    );
  });

  it("the launcher refuses to start with one line naming the bad setting", () => {
    const result = spawnSync(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "scripts/boot.ts", "start"],
      {
        env: { ...process.env, PORT: "70000", DATABASE_URL: "" },
        encoding: "utf8",
        timeout: 20_000,
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe("keyhook: invalid setting PORT: must be at most 65535");
  });

  it("the launcher refuses an invalid WEB_CONCURRENCY with one line naming it", () => {
    const result = spawnSync(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "scripts/boot.ts", "start"],
      {
        env: {
          ...process.env,
          KEYHOOK_ALLOW_DEV_SECRET: "1",
          WEB_CONCURRENCY: "lots",
          DATABASE_URL: "postgresql://u:p@127.0.0.1:1/app",
        },
        encoding: "utf8",
        timeout: 20_000,
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe("keyhook: invalid setting WEB_CONCURRENCY: must be a whole number");
  });

  it("the launcher refuses a pooled DATABASE_URL without DIRECT_DATABASE_URL with one line naming both", () => {
    const result = spawnSync(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "scripts/boot.ts", "start"],
      {
        env: {
          ...process.env,
          KEYHOOK_ALLOW_DEV_SECRET: "1",
          DATABASE_URL: "postgresql://u:p@127.0.0.1:1/app?pgbouncer=true",
          DIRECT_DATABASE_URL: "",
        },
        encoding: "utf8",
        timeout: 20_000,
      },
    );
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^keyhook: invalid setting DIRECT_DATABASE_URL: is required when DATABASE_URL goes through a connection pooler/,
    );
  });
});
