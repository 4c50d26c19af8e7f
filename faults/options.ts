// The knobs of `npm run test:faults`, from flags (`--events 500`) or environment
// (FAULTS_EVENTS=500); a flag wins. `--quick` is the CI profile: fewer events, a shorter run,
// the same kinds of faults.
import { z } from "zod";
import { readRunOptions } from "./run-options";

const schema = z.object({
  /** Unique events the simulator emits. */
  events: z.coerce.number().int().min(10).max(100_000),
  tenants: z.coerce.number().int().min(1).max(10_000),
  /** Emission pace: the run lasts about events / rate seconds, and the faults land during it. */
  rate: z.coerce.number().min(1).max(2_000),
  /** Random pause between two SIGKILLs of the app (uniform in [min, max]). 0 disables the kills. */
  killMinMs: z.coerce.number().int().min(0),
  killMaxMs: z.coerce.number().int().min(0),
  /** PostgreSQL restarts, spread over the emission window. */
  pgRestarts: z.coerce.number().int().min(0).max(100),
  /** How long PostgreSQL stays down at each restart. */
  pgDownMs: z.coerce.number().int().min(0).max(60_000),
  /** Share of app→simulator responses the proxy holds back past the simulator's timeout. */
  slowResponseRate: z.coerce.number().min(0).max(1),
  /** The simulator's delivery timeout; a held-back response is delayed by twice this. */
  deliveryTimeoutMs: z.coerce.number().int().min(100).max(60_000),
  duplicateRate: z.coerce.number().min(0).max(1),
  reorderRate: z.coerce.number().min(0).max(1),
  /** How long a reordered first delivery is held back: longer than a tenant's gap between events,
   * so a tenant's own events overtake each other, not only other tenants'. */
  reorderDelayMs: z.coerce.number().int().min(0).max(60_000),
  lostResponseRate: z.coerce.number().min(0).max(1),
  /** Divides the simulator's retry schedule (1000: 5 s → 5 ms, 30 min → 1.8 s, horizon ≈ 99 s). */
  timeScale: z.coerce.number().min(1),
  /** Upper bound for the wait until the simulator has nothing pending after the last fault. */
  drainTimeoutMs: z.coerce.number().int().min(1_000),
  seed: z.coerce.number().int(),
  appPort: z.coerce.number().int().min(1).max(65_535),
  simPort: z.coerce.number().int().min(1).max(65_535),
  proxyPort: z.coerce.number().int().min(1).max(65_535),
  pgPort: z.coerce.number().int().min(1).max(65_535),
  dataDir: z.string().min(1),
  quick: z.boolean(),
});

export type FaultRunOptions = z.output<typeof schema>;

const FULL = {
  events: 5_000,
  tenants: 50,
  rate: 60,
  killMinMs: 6_000,
  killMaxMs: 14_000,
  pgRestarts: 3,
  pgDownMs: 1_500,
  slowResponseRate: 0.02,
  deliveryTimeoutMs: 2_000,
  duplicateRate: 0.2,
  reorderRate: 0.1,
  reorderDelayMs: 1_500,
  lostResponseRate: 0.03,
  timeScale: 1_000,
  drainTimeoutMs: 180_000,
};

// CI: 50 s of faults — about eight kills and two PostgreSQL restarts (a crash, an orderly one) —
// then the drain: under two minutes on 2 cores.
const QUICK: Partial<typeof FULL> = {
  events: 500,
  tenants: 20,
  rate: 10,
  killMinMs: 4_000,
  killMaxMs: 8_000,
  pgRestarts: 2,
  drainTimeoutMs: 120_000,
};

const FLAGS = {
  events: "FAULTS_EVENTS",
  tenants: "FAULTS_TENANTS",
  rate: "FAULTS_RATE",
  "kill-min-ms": "FAULTS_KILL_MIN_MS",
  "kill-max-ms": "FAULTS_KILL_MAX_MS",
  "pg-restarts": "FAULTS_PG_RESTARTS",
  "pg-down-ms": "FAULTS_PG_DOWN_MS",
  "slow-response-rate": "FAULTS_SLOW_RESPONSE_RATE",
  "delivery-timeout-ms": "FAULTS_DELIVERY_TIMEOUT_MS",
  "duplicate-rate": "FAULTS_DUPLICATE_RATE",
  "reorder-rate": "FAULTS_REORDER_RATE",
  "reorder-delay-ms": "FAULTS_REORDER_DELAY_MS",
  "lost-response-rate": "FAULTS_LOST_RESPONSE_RATE",
  "time-scale": "FAULTS_TIME_SCALE",
  "drain-timeout-ms": "FAULTS_DRAIN_TIMEOUT_MS",
  seed: "FAULTS_SEED",
  "app-port": "FAULTS_APP_PORT",
  "sim-port": "FAULTS_SIM_PORT",
  "proxy-port": "FAULTS_PROXY_PORT",
  "pg-port": "FAULTS_PG_PORT",
  "data-dir": "FAULTS_DATA_DIR",
} as const;

const SPEC = {
  command: "test:faults",
  schema,
  flags: FLAGS,
  quickVariable: "FAULTS_QUICK",
  full: FULL,
  quick: QUICK,
  fixed: {
    seed: Math.floor(Math.random() * 2 ** 31),
    appPort: 4560,
    simPort: 4561,
    proxyPort: 4562,
    pgPort: 54560,
    dataDir: ".data/h-faults",
  },
};

export function readFaultRunOptions(argv: string[], env: Record<string, string | undefined>): FaultRunOptions {
  const options = readRunOptions(SPEC, argv, env);
  if (options.killMaxMs < options.killMinMs) throw new Error("invalid option killMaxMs: must be at least killMinMs");
  return options;
}
