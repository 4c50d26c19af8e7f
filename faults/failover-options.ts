// The knobs of `npm run test:failover`, from flags (`--events 500`) or environment
// (FAILOVER_EVENTS=500); a flag wins. `--quick` is the CI profile: fewer events, one failover,
// the same unsafe control.
import { z } from "zod";
import { readRunOptions } from "./run-options";

const schema = z.object({
  /** Unique signed events the simulator emits during the synchronous run. */
  events: z.coerce.number().int().min(10).max(100_000),
  /** Deliveries the simulator has in flight at once. */
  concurrency: z.coerce.number().int().min(1).max(256),
  /** Failovers during the synchronous run, spread over its emission window. */
  failovers: z.coerce.number().int().min(1).max(20),
  /** "crash": PostgreSQL of the primary is SIGKILLed (Patroni fails over at once); "node": Patroni
   * and PostgreSQL are (the failover waits for the leader key's TTL); "mixed": alternately. */
  kind: z.enum(["crash", "node", "mixed"]),
  /** PostgreSQL nodes under Patroni (synchronous_node_count 1: any one standby confirms). */
  nodes: z.coerce.number().int().min(2).max(5),
  tenants: z.coerce.number().int().min(1).max(10_000),
  /** Emission pace (events per second). */
  rate: z.coerce.number().min(1).max(2_000),
  /** How long the primary's WAL stream is frozen before it is killed (the standby falls behind). */
  freezeMs: z.coerce.number().int().min(0).max(30_000),
  /** Events of the unsafe control (asynchronous replication); 0 skips it. */
  controlEvents: z.coerce.number().int().min(0).max(100_000),
  /** Divides the simulator's retry schedule, as in test:faults. */
  timeScale: z.coerce.number().min(1),
  drainTimeoutMs: z.coerce.number().int().min(1_000),
  seed: z.coerce.number().int(),
  /** The cluster's ports: basePort … basePort+39 (test/support/patroni-cluster.ts). */
  basePort: z.coerce.number().int().min(1).max(65_000),
  appPort: z.coerce.number().int().min(1).max(65_535),
  simPort: z.coerce.number().int().min(1).max(65_535),
  dataDir: z.string().min(1),
  quick: z.boolean(),
});

export type FailoverRunOptions = z.output<typeof schema>;

const FULL = {
  events: 3_000,
  concurrency: 8,
  failovers: 4,
  kind: "mixed" as "crash" | "node" | "mixed",
  nodes: 3,
  tenants: 50,
  rate: 30,
  freezeMs: 1_500,
  controlEvents: 600,
  timeScale: 1_000,
  drainTimeoutMs: 180_000,
};

// CI: one crash of the primary under load, then the unsafe control: under two minutes.
const QUICK: Partial<typeof FULL> = {
  events: 400,
  failovers: 1,
  kind: "crash",
  tenants: 20,
  rate: 20,
  controlEvents: 200,
  drainTimeoutMs: 90_000,
};

const FLAGS = {
  events: "FAILOVER_EVENTS",
  concurrency: "FAILOVER_CONCURRENCY",
  failovers: "FAILOVER_COUNT",
  kind: "FAILOVER_KIND",
  nodes: "FAILOVER_NODES",
  tenants: "FAILOVER_TENANTS",
  rate: "FAILOVER_RATE",
  "freeze-ms": "FAILOVER_FREEZE_MS",
  "control-events": "FAILOVER_CONTROL_EVENTS",
  "time-scale": "FAILOVER_TIME_SCALE",
  "drain-timeout-ms": "FAILOVER_DRAIN_TIMEOUT_MS",
  seed: "FAILOVER_SEED",
  "base-port": "FAILOVER_BASE_PORT",
  "app-port": "FAILOVER_APP_PORT",
  "sim-port": "FAILOVER_SIM_PORT",
  "data-dir": "FAILOVER_DATA_DIR",
} as const;

const SPEC = {
  command: "test:failover",
  schema,
  flags: FLAGS,
  quickVariable: "FAILOVER_QUICK",
  full: FULL,
  quick: QUICK,
  fixed: {
    seed: Math.floor(Math.random() * 2 ** 31),
    basePort: 4700,
    appPort: 4660,
    simPort: 4661,
    dataDir: ".data/h-failover",
  },
};

export function readFailoverRunOptions(argv: string[], env: Record<string, string | undefined>): FailoverRunOptions {
  return readRunOptions(SPEC, argv, env);
}
