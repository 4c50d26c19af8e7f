// The one place configuration is read. Every setting is validated here, and an invalid one is
// reported as `invalid setting NAME: reason` so the launcher can refuse to start with one line.
import { z } from "zod";
import { AppError } from "./errors";

// A fixed, public secret so `npm run dev`, the tests and the simulator agree without setup.
// Never accepted in production (`npm start` requires WEBHOOK_SECRETS).
export const DEV_WEBHOOK_SECRET = "whsec_a2V5aG9vay1kZXZlbG9wbWVudC1zZWNyZXQtZG8tbm90LXVzZQ==";

const secretPattern = /^whsec_[A-Za-z0-9+/=]{16,}$/;

const intSetting = (min: number, max: number) =>
  z.coerce.number().int(`must be a whole number`).min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: intSetting(1, 65535).default(3000),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL")
      .optional(),
    DATABASE_POOL_SIZE: intSetting(1, 200).default(10),
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
    WEBHOOK_MAX_BODY_BYTES: intSetting(1024, 10 * 1024 * 1024).default(256 * 1024),
    /** How long one ingest transaction may take before we answer 503 (the sender retries). */
    INGEST_TX_TIMEOUT_MS: intSetting(100, 60_000).default(5_000),
    RETENTION_DAYS: intSetting(1, 3650).default(14),
    PROVIDER_RETRY_HORIZON_HOURS: intSetting(1, 24 * 365).default(28),
    RETENTION_MARGIN_HOURS: intSetting(0, 24 * 365).default(24),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production" && !env.WEBHOOK_SECRETS && process.env.KEYHOOK_ALLOW_DEV_SECRET !== "1") {
      ctx.addIssue({ code: "custom", path: ["WEBHOOK_SECRETS"], message: "is required in production (one or more whsec_… secrets)" });
    }
    const windowHours = env.RETENTION_DAYS * 24;
    const needed = env.PROVIDER_RETRY_HORIZON_HOURS + env.RETENTION_MARGIN_HOURS;
    if (windowHours <= needed) {
      ctx.addIssue({
        code: "custom",
        path: ["RETENTION_DAYS"],
        message: `retention window ${windowHours} h must be longer than the provider retry horizon ${env.PROVIDER_RETRY_HORIZON_HOURS} h + margin ${env.RETENTION_MARGIN_HOURS} h`,
      });
    }
  });

export type Env = Omit<z.infer<typeof schema>, "WEBHOOK_SECRETS"> & { WEBHOOK_SECRETS: string[] };

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = schema.safeParse(source);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    throw new AppError("invalid_setting", `invalid setting ${name}: ${issue.message}`);
  }
  return { ...result.data, WEBHOOK_SECRETS: result.data.WEBHOOK_SECRETS ?? [DEV_WEBHOOK_SECRET] };
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
