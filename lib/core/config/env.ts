// The one place configuration is read. Every setting is validated here, and an invalid one is
// reported as `invalid setting NAME: reason` so the launcher can refuse to start with one line.
import { z } from "zod";
import { AppError } from "../errors";
import { isPooledUrl, POOLED_WITHOUT_DIRECT } from "./database-urls";
import { retentionWindowProblem } from "../retention/retention-window";
import { parseEncryptionKeys } from "./encryption-keys";
import { ROLES, type Role } from "../vocabulary";
import { parseAuditSigningKeys } from "./audit-signing-keys";

// A fixed, public secret so `npm run dev`, the tests and the simulator agree without setup.
// Never accepted in production (`npm start` requires WEBHOOK_SECRETS).
export const DEV_WEBHOOK_SECRET = "whsec_a2V5aG9vay1kZXZlbG9wbWVudC1zZWNyZXQtZG8tbm90LXVzZQ==";

// Where the provider's REST API is and the bearer key for it. The defaults are the provider
// simulator's (`npm run provider`), so dev and tests need no setup; the simulator reads the same
// constants. A real deployment sets PROVIDER_URL and PROVIDER_API_KEY.
export const DEFAULT_PROVIDER_URL = "http://127.0.0.1:4010";
export const DEV_PROVIDER_API_KEY = "pk_dev_keyhook_simulator_do_not_use";

// Signs dashboard session cookies in dev and tests. `npm start` requires NEXTAUTH_SECRET.
export const DEV_AUTH_SECRET = "keyhook-development-session-secret-do-not-use-in-production";

const secretPattern = /^whsec_[A-Za-z0-9+/=]{16,}$/;
const publicKeyPattern = /^whpk_[A-Za-z0-9+/]{42,43}=?$/;

// Digits only, so `PORT=abc` reads "must be a whole number" like `PORT=70000` reads "must be at
// most 65535" (a bare coerce says "expected number, received NaN").
const intSetting = (min: number, max: number) =>
  z
    .string({ error: "must be a whole number" })
    .trim()
    .regex(/^[+-]?\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: intSetting(1, 65535).default(3000),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL")
      .optional(),
    /**
     * The database itself, bypassing a pooler (Prisma's `directUrl`): migrations and their lock.
     * Required when DATABASE_URL goes through a transaction-mode pooler (`pgbouncer=true`).
     */
    DIRECT_DATABASE_URL: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL")
        .optional(),
    ),
    DATABASE_POOL_SIZE: intSetting(1, 200).default(10),
    /** How long a starting replica waits for another one's migrations before giving up. */
    MIGRATION_LOCK_TIMEOUT_MS: intSetting(1_000, 3_600_000).default(300_000),
    WEBHOOK_SECRETS: z
      .string()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined || raw.trim() === "") return undefined;
        const secrets = raw.split(/[\s,]+/).filter(Boolean);
        const bad = secrets.find((s) => !secretPattern.test(s));
        if (bad) {
          ctx.addIssue({ code: "custom", message: `"${bad.slice(0, 10)}…" is not a whsec_<base64> secret` });
          return z.NEVER;
        }
        return secrets;
      }),
    /** The provider's Standard Webhooks Ed25519 public keys (whpk_…): `v1a` signatures, beside WEBHOOK_SECRETS' `v1`. */
    WEBHOOK_PUBLIC_KEYS: z
      .string()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined || raw.trim() === "") return [];
        const keys = raw.split(/[\s,]+/).filter(Boolean);
        const bad = keys.find((k) => !publicKeyPattern.test(k) || Buffer.from(k.slice(5), "base64").length !== 32);
        if (bad) {
          ctx.addIssue({
            code: "custom",
            message: `"${bad.slice(0, 10)}…" is not a whpk_<base64 of a 32-byte Ed25519 public key>`,
          });
          return z.NEVER;
        }
        return keys;
      }),
    /** Accepted |our clock − webhook-timestamp| in seconds, inclusive (Standard Webhooks: 5 minutes). */
    WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS: intSetting(30, 3_600).default(300),
    /** 1: the provider's per-district sequences have no holes, so a skipped number is a missing event (gap tracking). */
    PROVIDER_SEQUENCES_DENSE: z.enum(["0", "1"], { error: "must be 1 (dense: track gaps) or 0" }).default("1"),
    WEBHOOK_MAX_BODY_BYTES: intSetting(1024, 10 * 1024 * 1024).default(256 * 1024),
    /** How long one ingest transaction may take before we answer 503 (the sender retries). */
    INGEST_TX_TIMEOUT_MS: intSetting(100, 60_000).default(5_000),
    RETENTION_DAYS: intSetting(1, 3650).default(14),
    PROVIDER_RETRY_HORIZON_HOURS: intSetting(1, 24 * 365).default(28),
    RETENTION_MARGIN_HOURS: intSetting(0, 24 * 365).default(24),
    /** Unset: min(7, RETENTION_DAYS). The stored body may go before its claim (lib/operations/retention/settings.ts). */
    PAYLOAD_RETENTION_DAYS: intSetting(1, 3650).optional(),
    /** Days sent outbox rows (and their attempts) are kept; pending and failed rows always are (docs/retention.md). */
    OUTBOX_RETENTION_DAYS: intSetting(1, 3650).default(30),
    /** Days a resolved alert (and its notification state) is kept; open and acknowledged ones always are. */
    ALERT_RETENTION_DAYS: intSetting(1, 3650).default(90),
    /** Days a closed sequence gap is kept; open gaps always are. */
    GAP_RETENTION_DAYS: intSetting(1, 3650).default(90),
    /** Days the purge, readiness and drift run histories (and queue jobs failed for good) are kept. */
    RUN_HISTORY_RETENTION_DAYS: intSetting(1, 3650).default(90),
    /** Days the audit log is kept; its deletion is itself audited (docs/retention.md). */
    AUDIT_RETENTION_DAYS: intSetting(7, 3650).default(400),
    /** Days a failed-sign-in counter is kept beside its audit entry (lib/operations/retention/purge-sign-in-records.ts). */
    SIGN_IN_FAILURE_RETENTION_DAYS: intSetting(1, 3650).default(90),
    /** Days a revoked or rotated key stays in a district's history; never less than the claims' window (the purge raises it). */
    KEY_HISTORY_RETENTION_DAYS: intSetting(1, 3650).default(400),
    /** The self-hosted worker's nightly purge hour (UTC). */
    PURGE_HOUR_UTC: intSetting(0, 23).default(3),
    /** Bearer secret of /api/cron/purge; unset: the route answers 503 "not configured". */
    CRON_SECRET: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z.string().min(16, "must be at least 16 characters").optional(),
    ),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    /** Bearer token for GET /api/metrics; unset → the endpoint answers 404. */
    METRICS_TOKEN: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z.string().min(16, "must be at least 16 characters").optional(),
    ),
    PROVIDER_URL: z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).default(DEFAULT_PROVIDER_URL),
    PROVIDER_API_KEY: z.string().min(8, "must be at least 8 characters").default(DEV_PROVIDER_API_KEY),
    /** Per HTTP call to the provider; the client retries 429/5xx on top of it. */
    PROVIDER_TIMEOUT_MS: intSetting(100, 120_000).default(10_000),
    /** Our webhook endpoint as the provider must call it; when set, the worker registers it at start. */
    PROVIDER_WEBHOOK_URL: z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).optional(),
    /** How far back the provider's delivery history can be listed and redelivered (`npm run recover` refuses beyond it). */
    PROVIDER_HISTORY_DAYS: intSetting(1, 3650).default(30),
    /** `npm run recover` asks the provider for deliveries from this long before the restore point (attempts in flight, clock skew). */
    RECOVERY_MARGIN_MINUTES: intSetting(0, 24 * 60).default(10),
    /** pgBackRest's stanza of this database; when set, the readiness check reads `pgbackrest info` (docs/backup.md). */
    BACKUP_STANZA: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be a pgBackRest stanza name (letters, digits, _ . -)")
        .optional(),
    ),
    /** The readiness check fails when the newest backup finished longer ago than this. */
    BACKUP_MAX_AGE_HOURS: intSetting(1, 24 * 60).default(26),
    /** Keys per page the drift check asks the provider for (lib/drift; the provider caps a page at 1000). */
    DRIFT_PAGE_SIZE: intSetting(1, 1000).default(500),
    /** Pause between two pages of the drift check, so a long check leaves the cores to ingest. */
    DRIFT_PAGE_PAUSE_MS: intSetting(0, 10_000).default(20),
    /** Hours between scheduled drift checks (the worker); 0: only when a platform admin asks. */
    DRIFT_CHECK_INTERVAL_HOURS: intSetting(0, 24 * 30).default(24),
    /** How often the worker runs the alert sweep (lib/operations/worker/sweep-alerts.ts). */
    ALERT_SWEEP_INTERVAL_MS: intSetting(1_000, 3_600_000).default(60_000),
    /** Provider calls failing (no answer or 5xx) for longer than this, with no success since: an alert. */
    ALERT_PROVIDER_UNREACHABLE_MINUTES: intSetting(1, 24 * 60).default(15),
    /** Share of our webhook answers that were not 2xx, in percent, above which the window raises an alert. */
    ALERT_DELIVERY_FAILURE_PERCENT: intSetting(1, 100).default(20),
    /** The window of that share, in minutes, and the fewest deliveries in it for the share to count. */
    ALERT_DELIVERY_FAILURE_WINDOW_MINUTES: intSetting(5, 24 * 60).default(60),
    ALERT_DELIVERY_FAILURE_MIN_DELIVERIES: intSetting(1, 1_000_000).default(20),
    /** How often the worker folds new claims and receipts into the dashboard's hourly counts (lib/rollups). */
    ROLLUP_INTERVAL_MS: intSetting(100, 3_600_000).default(5_000),
    /** How often the worker's job queue looks for jobs that came due without a NOTIFY (a retry's backoff, a follow-up). */
    OUTBOX_POLL_INTERVAL_MS: intSetting(10, 60_000).default(1_000),
    /** Jobs one worker process runs at once (the outbox, the purge, the notifier …). */
    WORKER_CONCURRENCY: intSetting(1, 32).default(4),
    /** An alert still open and seen again is repeated to each channel at most this often. */
    ALERT_REPEAT_INTERVAL_MINUTES: intSetting(1, 10_080).default(60),
    /** How often the notifier looks for alerts to send (a new alert goes out within this). */
    ALERT_NOTIFY_INTERVAL_MS: intSetting(500, 600_000).default(5_000),
    /** Failed sends in a row after which a channel raises its own `channel_failing` alert. */
    ALERT_CHANNEL_FAILURE_THRESHOLD: intSetting(1, 100).default(5),
    /** A claimed row becomes due again after this long if its worker died mid-send. */
    OUTBOX_LEASE_MS: intSetting(100, 3_600_000).default(60_000),
    /** After this many attempts a row is marked failed for a human to look at. */
    OUTBOX_MAX_ATTEMPTS: intSetting(1, 1_000).default(12),
    /** Signs and encrypts the dashboard session (next-auth). Required in production. */
    NEXTAUTH_SECRET: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z.string().min(32, "must be at least 32 characters").optional(),
    ),
    /** The dashboard's public URL; https:// turns on Secure, __Host- session cookies. */
    NEXTAUTH_URL: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).optional(),
    ),
    /** Single sign-on: set all three to offer "Sign in with <OIDC_NAME>" (users must already exist). */
    OIDC_ISSUER: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).optional(),
    ),
    OIDC_CLIENT_ID: z.preprocess((v) => (v === "" ? undefined : v), z.string().optional()),
    OIDC_CLIENT_SECRET: z.preprocess((v) => (v === "" ? undefined : v), z.string().optional()),
    OIDC_NAME: z.string().min(1).max(60).default("SSO"),
    /** Single sign-on: 1 trusts the issuer's email claim without email_verified (only for an IdP that verifies every address). */
    OIDC_TRUST_ISSUER_EMAILS: z.enum(["0", "1"]).default("0"),
    /**
     * The roles that must hold a second factor (lib/core/auth/mfa/mfa-policy.ts): comma-separated.
     * Unset: the two staff roles. Empty: nobody (every start prints a warning).
     */
    MFA_REQUIRED_ROLES: z
      .string()
      .default("support,platform_admin")
      .transform((raw, ctx) => {
        const roles = raw
          .split(/[\s,]+/)
          .map((r) => r.trim())
          .filter(Boolean);
        const bad = roles.find((r) => !(ROLES as readonly string[]).includes(r));
        if (bad) {
          ctx.addIssue({ code: "custom", message: `"${bad.slice(0, 40)}" is not a role (${ROLES.join(", ")})` });
          return z.NEVER;
        }
        return [...new Set(roles)] as Role[];
      }),
    /** A dangerous action asks for a factor again when the last one was proven longer ago than this. */
    MFA_STEP_UP_MINUTES: intSetting(1, 24 * 60).default(15),
    /**
     * Single sign-on without the identity provider's MFA (no qualifying amr or acr in the ID token):
     * `factor` asks for Keyhook's own second factor, `refuse` refuses the sign-in.
     */
    OIDC_WITHOUT_MFA: z.enum(["factor", "refuse"], { error: "must be factor or refuse" }).default("factor"),
    /** Single sign-on: `acr` values that mean the identity provider did MFA (comma-separated; amr is read too). */
    OIDC_MFA_ACR_VALUES: z
      .string()
      .default("http://schemas.openid.net/pape/policies/2007/06/multi-factor")
      .transform((raw) =>
        raw
          .split(/[\s,]+/)
          .map((v) => v.trim())
          .filter(Boolean),
      ),
    /** scrypt cost of new password hashes as log2(N) (r = 8, p = 1). Unset: 15 (32 MiB per hash), 12 under NODE_ENV=test. */
    PASSWORD_SCRYPT_LOG_N: intSetting(10, 20).optional(),
    /** Password hashes computed at once (scrypt on libuv's pool): the rest of the CPU stays with ingest. */
    SIGN_IN_HASH_CONCURRENCY: intSetting(1, 64).default(1),
    /** Sign-ins waiting for a hash slot; beyond it the form says "busy, try again" (no hash, nothing counted). */
    SIGN_IN_HASH_QUEUE: intSetting(0, 10_000).default(64),
    /**
     * How many reverse proxies we trust in front of the app. 0: none; the production server drops
     * every X-Forwarded-* header a client sends (server/request-guard.ts), so the client address is
     * the socket's. N: the N-th entry from the right of x-forwarded-for, the one our outermost proxy
     * appended, and X-Forwarded-Host / -Proto as that proxy set them.
     */
    TRUSTED_PROXY_HOPS: intSetting(0, 10).default(0),
    /**
     * The keys that encrypt the secrets the app stores (alert channel URLs, SMTP credentials,
     * signing secrets): `id:base64` entries of 32 bytes, newest first (lib/secrets). Required in
     * production; elsewhere unset means a key generated under .data/.
     */
    SECRETS_ENCRYPTION_KEYS: z.preprocess(
      (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
      z
        .string()
        .optional()
        .transform((raw, ctx) => {
          if (raw === undefined) return undefined;
          const parsed = parseEncryptionKeys(raw);
          if (typeof parsed === "string") {
            ctx.addIssue({ code: "custom", message: parsed });
            return z.NEVER;
          }
          return raw;
        }),
    ),
    /**
     * The Ed25519 keys that sign the audit log's checkpoints: `id:base64` entries of a 32-byte
     * private key, newest first (the newest signs; older ones are published so their checkpoints
     * still verify). Required in production; elsewhere unset means a key generated under .data/.
     */
    AUDIT_SIGNING_KEY: z.preprocess(
      (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
      z
        .string()
        .optional()
        .transform((raw, ctx) => {
          if (raw === undefined) return undefined;
          const parsed = parseAuditSigningKeys(raw);
          if (typeof parsed === "string") {
            ctx.addIssue({ code: "custom", message: parsed });
            return z.NEVER;
          }
          return raw;
        }),
    ),
    /**
     * Receipts per minute (per process) for requests refused before any handler could read them:
     * the HTTP parser's refusals and bodies cut off mid-way. Beyond it they are counted only.
     */
    REFUSED_RECEIPTS_PER_MINUTE: intSetting(0, 100_000).default(60),
    /** Full CSV exports streaming at once per process; 4 more wait, beyond that 503 + Retry-After. */
    CSV_EXPORT_CONCURRENCY: intSetting(1, 100).default(1),
    /** The address the production server listens on (a container: all interfaces). */
    LISTEN_HOST: z.string().min(1).default("0.0.0.0"),
    /** Server processes `npm start` runs sharing the port (node:cluster), each with its own DATABASE_POOL_SIZE pool. */
    WEB_CONCURRENCY: intSetting(1, 64).default(1),
    /** SIGTERM: how long a replica waits for the requests in flight before it closes its pools and exits. */
    SHUTDOWN_DRAIN_MS: intSetting(100, 600_000).default(10_000),
    /** OpenTelemetry: base URL of an OTLP/HTTP collector (traces go to <url>/v1/traces); unset: no tracing. */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).optional(),
    ),
    /** The service.name of the exported spans. */
    OTEL_SERVICE_NAME: z.string().min(1).max(100).default("keyhook"),
    /** Launcher: where the embedded PostgreSQL keeps its data and listens (when DATABASE_URL is unset). */
    KEYHOOK_DATA_DIR: z.preprocess((v) => (v === "" ? undefined : v), z.string().optional()),
    KEYHOOK_PG_PORT: intSetting(1, 65535).optional(),
    /**
     * Set by the launcher under `npm run dev`, which starts next dev while the database is still
     * starting: the app's connections wait until this file exists (lib/core/db/dev-ready-gate.ts).
     */
    KEYHOOK_DEV_READY_FILE: z.preprocess((v) => (v === "" ? undefined : v), z.string().optional()),
    /** Launcher: seed the demo districts and users under `npm start` too (browser tests, demos). */
    KEYHOOK_SEED_DEMO: z.enum(["0", "1"]).default("0"),
    /** Launcher: the provider simulator and the worker next to the app (unset: in `npm run dev` only). */
    KEYHOOK_WITH_SIMULATOR: z.preprocess((v) => (v === "" ? undefined : v), z.enum(["0", "1"]).optional()),
    /** Launcher: the outbox worker next to the app under `npm start` too. */
    KEYHOOK_WITH_WORKER: z.enum(["0", "1"]).default("0"),
    /** Browser tests and demos only: `npm start` accepts the public dev secrets (never in a deployment). */
    KEYHOOK_ALLOW_DEV_SECRET: z.enum(["0", "1"]).default("0"),
    /** Set by the launcher for the processes it starts: exit when its stdin (a pipe from the launcher) closes. */
    KEYHOOK_EXIT_WITH_PARENT: z.enum(["0", "1"]).default("0"),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production" && !env.NEXTAUTH_SECRET && env.KEYHOOK_ALLOW_DEV_SECRET !== "1") {
      ctx.addIssue({
        code: "custom",
        path: ["NEXTAUTH_SECRET"],
        message: "is required in production (32+ random characters)",
      });
    }
    const oidc = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET].filter(Boolean).length;
    if (oidc !== 0 && oidc !== 3) {
      ctx.addIssue({
        code: "custom",
        path: ["OIDC_ISSUER"],
        message: "OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together",
      });
    }
    if (
      env.NODE_ENV === "production" &&
      !env.WEBHOOK_SECRETS &&
      env.WEBHOOK_PUBLIC_KEYS.length === 0 &&
      env.KEYHOOK_ALLOW_DEV_SECRET !== "1"
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["WEBHOOK_SECRETS"],
        message: "is required in production (one or more whsec_… secrets, or whpk_… keys in WEBHOOK_PUBLIC_KEYS)",
      });
    }
    if (env.NODE_ENV === "production" && !env.SECRETS_ENCRYPTION_KEYS && env.KEYHOOK_ALLOW_DEV_SECRET !== "1") {
      ctx.addIssue({
        code: "custom",
        path: ["SECRETS_ENCRYPTION_KEYS"],
        message: "is required in production (`npm run secrets -- new-key` prints one)",
      });
    }
    if (env.NODE_ENV === "production" && !env.AUDIT_SIGNING_KEY && env.KEYHOOK_ALLOW_DEV_SECRET !== "1") {
      ctx.addIssue({
        code: "custom",
        path: ["AUDIT_SIGNING_KEY"],
        message: "is required in production (`npm run audit -- new-key` prints one)",
      });
    }
    if (env.SHUTDOWN_DRAIN_MS <= env.INGEST_TX_TIMEOUT_MS) {
      ctx.addIssue({
        code: "custom",
        path: ["SHUTDOWN_DRAIN_MS"],
        message: `must be longer than INGEST_TX_TIMEOUT_MS (${env.INGEST_TX_TIMEOUT_MS} ms), so an ingest in flight at SIGTERM can finish`,
      });
    }
    if (env.DATABASE_URL && isPooledUrl(env.DATABASE_URL) && !env.DIRECT_DATABASE_URL) {
      ctx.addIssue({ code: "custom", path: ["DIRECT_DATABASE_URL"], message: POOLED_WITHOUT_DIRECT });
    }
    if (env.DIRECT_DATABASE_URL && isPooledUrl(env.DIRECT_DATABASE_URL)) {
      ctx.addIssue({
        code: "custom",
        path: ["DIRECT_DATABASE_URL"],
        message: "must reach PostgreSQL itself, not a pooler (remove pgbouncer=true)",
      });
    }
    const retention = retentionWindowProblem({
      retentionDays: env.RETENTION_DAYS,
      retryHorizonHours: env.PROVIDER_RETRY_HORIZON_HOURS,
      marginHours: env.RETENTION_MARGIN_HOURS,
      payloadRetentionDays: env.PAYLOAD_RETENTION_DAYS,
    });
    if (retention) {
      const setting = retention.field === "retentionDays" ? "RETENTION_DAYS" : "PAYLOAD_RETENTION_DAYS";
      ctx.addIssue({ code: "custom", path: [setting], message: retention.message });
    }
  });

export type Env = Omit<z.infer<typeof schema>, "WEBHOOK_SECRETS"> & { WEBHOOK_SECRETS: string[] };

/** The name of every setting this reader knows (.env.example documents each one). */
export const SETTING_NAMES = Object.keys(schema.shape) as (keyof Env)[];

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = schema.safeParse(source);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    throw new AppError("invalid_setting", `invalid setting ${name}: ${issue.message}`);
  }
  // The public dev secret stands in only when no credential at all is configured.
  const fallback = result.data.WEBHOOK_PUBLIC_KEYS.length > 0 ? [] : [DEV_WEBHOOK_SECRET];
  return { ...result.data, WEBHOOK_SECRETS: result.data.WEBHOOK_SECRETS ?? fallback };
}

let cached: Env | undefined;

/** The validated configuration of this process (read once). */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Tests change process.env between cases; production code never calls this. */
export function resetEnvForTests(): void {
  cached = undefined;
}
