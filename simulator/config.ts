// The simulator's own settings (it is its own program; the app's lib/core/config/env.ts is not involved).
// It shares with the app only the dev defaults: the API key, PROVIDER_URL (the app calls it, the
// simulator listens on its port: one setting moves both) and the webhook signing secret, so
// `npm run dev` and the tests work without configuration. Its journal lives under
// KEYHOOK_DATA_DIR, next to the launcher's PostgreSQL data, when that is set.
import path from "node:path";
import { z } from "zod";
import { DEFAULT_PROVIDER_URL, DEV_PROVIDER_API_KEY, DEV_WEBHOOK_SECRET } from "../lib/core/config/env";
import { faultsSchema, type Faults } from "./faults";

/** Svix's schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (then the message fails). */
export const DEFAULT_RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

// Digits only: "abc" reads "must be a whole number", not "expected number, received NaN".
const wholeNumber = () => z.string().trim().regex(/^\d+$/, "must be a whole number").transform(Number);

/** The port the app calls: PROVIDER_URL's, else the default simulator URL's. */
export function portOfProviderUrl(providerUrl: string | undefined): number {
  let url: URL;
  try {
    url = new URL(providerUrl || DEFAULT_PROVIDER_URL);
  } catch {
    throw new Error("invalid setting PROVIDER_URL: must be an http(s):// URL");
  }
  return Number(url.port || (url.protocol === "https:" ? 443 : 80));
}

/** The journal's folder: PROVIDER_SIM_DATA_DIR, else provider-sim/ under KEYHOOK_DATA_DIR, else .data/provider-sim. */
export function simulatorDataDir(source: Record<string, string | undefined>): string {
  if (source.PROVIDER_SIM_DATA_DIR) return source.PROVIDER_SIM_DATA_DIR;
  return source.KEYHOOK_DATA_DIR
    ? path.join(source.KEYHOOK_DATA_DIR, "provider-sim")
    : path.join(".data", "provider-sim");
}

const schema = z.object({
  PROVIDER_SIM_HOST: z.string().default("127.0.0.1"),
  /** 0 picks a free port (tests) and prints it as {"port":N} on stdout. Unset: PROVIDER_URL's port. */
  PROVIDER_SIM_PORT: wholeNumber()
    .pipe(z.number().int().min(0, "must be at least 0").max(65535, "must be at most 65535"))
    .optional(),
  PROVIDER_API_KEY: z.string().min(8).default(DEV_PROVIDER_API_KEY),
  /** Where the journal lives; "memory" keeps nothing across restarts. */
  PROVIDER_SIM_DATA_DIR: z.string().optional(),
  /** Secret new hooks sign with (the app's WEBHOOK_SECRETS must hold it). */
  PROVIDER_SIM_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, "must be a whsec_<base64> secret")
    .default(DEV_WEBHOOK_SECRET),
  /** A whsk_ Ed25519 key: every delivery also carries a `v1a` signature (the app's WEBHOOK_PUBLIC_KEYS must hold its whpk_). */
  PROVIDER_SIM_SIGNING_KEY: z
    .string()
    .regex(/^whsk_[A-Za-z0-9+/]{42,43}=?$/, "must be a whsk_<base64 of a 32-byte Ed25519 seed> key")
    .optional(),
  /** Divides the retry schedule: 1 is real time, 1000 turns 5 min into 300 ms. */
  PROVIDER_SIM_TIME_SCALE: z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, "must be a number")
    .transform(Number)
    .pipe(z.number().min(1, "must be at least 1").max(10_000_000, "must be at most 10000000"))
    .default(1),
  /** A delivery not answered within this is a failure (like a non-2xx). */
  PROVIDER_SIM_DELIVERY_TIMEOUT_MS: wholeNumber()
    .pipe(z.number().min(10, "must be at least 10").max(120_000, "must be at most 120000"))
    .default(15_000),
  /** Deliveries in flight at once (across hooks). */
  PROVIDER_SIM_CONCURRENCY: wholeNumber()
    .pipe(z.number().min(1, "must be at least 1").max(256, "must be at most 256"))
    .default(8),
  PROVIDER_SIM_SEED: wholeNumber().optional(),
  /** JSON object of fault knobs (simulator/faults.ts). */
  PROVIDER_SIM_FAULTS: z.string().optional(),
  /** Comma-separated tenants to stream realistic events for (unset with PROVIDER_SIM_DEMO=1: the demo districts). */
  PROVIDER_SIM_STREAM_TENANTS: z.string().optional(),
  /** The mean time between two background key operations on ONE streamed tenant (minutes to hours apart). */
  PROVIDER_SIM_STREAM_INTERVAL_MS: wholeNumber()
    .pipe(z.number().min(100, "must be at least 100").max(86_400_000, "must be at most 86400000"))
    .default(2_700_000),
  /** The stream leaves a tenant alone this long after a person changed its keys through the API. */
  PROVIDER_SIM_QUIET_MS: wholeNumber()
    .pipe(z.number().min(0, "must be at least 0").max(86_400_000, "must be at most 86400000"))
    .default(3_600_000),
  /** Start the demo districts from the app's demo seed history (lib/operations/demo/demo-data.ts). */
  PROVIDER_SIM_DEMO: z.enum(["0", "1"]).default("0"),
});

export type SimConfig = {
  host: string;
  port: number;
  apiKey: string;
  dataDir: string | null;
  secret: string;
  signingKey: string | null;
  retryScheduleMs: number[];
  deliveryTimeoutMs: number;
  concurrency: number;
  seed: number;
  faults: Faults;
  /** Explicit PROVIDER_SIM_STREAM_TENANTS; null: the demo districts when `demo`, else none. */
  streamTenants: string[] | null;
  streamIntervalMs: number;
  quietMs: number;
  demo: boolean;
};

export function readSimConfig(source: Record<string, string | undefined>): SimConfig {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`invalid setting ${String(issue.path[0])}: ${issue.message}`);
  }
  const c = parsed.data;
  let faults: Faults;
  try {
    faults = faultsSchema.parse(c.PROVIDER_SIM_FAULTS ? JSON.parse(c.PROVIDER_SIM_FAULTS) : {});
  } catch (error) {
    throw new Error(
      `invalid setting PROVIDER_SIM_FAULTS: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
    );
  }
  return {
    host: c.PROVIDER_SIM_HOST,
    port: c.PROVIDER_SIM_PORT ?? portOfProviderUrl(source.PROVIDER_URL),
    apiKey: c.PROVIDER_API_KEY,
    dataDir: c.PROVIDER_SIM_DATA_DIR === "memory" ? null : simulatorDataDir(source),
    secret: c.PROVIDER_SIM_SECRET,
    signingKey: c.PROVIDER_SIM_SIGNING_KEY ?? null,
    retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS.map((ms) => ms / c.PROVIDER_SIM_TIME_SCALE),
    deliveryTimeoutMs: c.PROVIDER_SIM_DELIVERY_TIMEOUT_MS,
    concurrency: c.PROVIDER_SIM_CONCURRENCY,
    seed: c.PROVIDER_SIM_SEED ?? Math.floor(Math.random() * 2 ** 31),
    faults,
    streamTenants:
      c.PROVIDER_SIM_STREAM_TENANTS === undefined
        ? null
        : c.PROVIDER_SIM_STREAM_TENANTS.split(",")
            .map((t) => t.trim())
            .filter(Boolean),
    streamIntervalMs: c.PROVIDER_SIM_STREAM_INTERVAL_MS,
    quietMs: c.PROVIDER_SIM_QUIET_MS,
    demo: c.PROVIDER_SIM_DEMO === "1",
  };
}
