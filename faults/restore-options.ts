// The knobs of `npm run test:restore`, from flags (`--events-after 500`) or environment
// (RESTORE_EVENTS_AFTER=500); a flag wins. `--quick` is the CI profile: fewer events, the same
// disaster, restore, catch-up and control.
import { z } from "zod";
import { readRunOptions } from "./run-options";

const schema = z.object({
  /** Events delivered before the full backup. */
  eventsBefore: z.coerce.number().int().min(10).max(100_000),
  /** Events after the full backup, before the restore point: the restore replays them from the WAL archive. */
  eventsBetween: z.coerce.number().int().min(10).max(100_000),
  /** Events after the restore point: acknowledged, then lost by the restore, until `npm run recover`. */
  eventsAfter: z.coerce.number().int().min(10).max(100_000),
  tenants: z.coerce.number().int().min(1).max(10_000),
  /** Emission pace (events per second). */
  rate: z.coerce.number().min(1).max(2_000),
  /** Deliveries the simulator has in flight at once. */
  concurrency: z.coerce.number().int().min(1).max(256),
  /** Divides the simulator's retry schedule, as in test:faults. */
  timeScale: z.coerce.number().min(1),
  drainTimeoutMs: z.coerce.number().int().min(1_000),
  seed: z.coerce.number().int(),
  appPort: z.coerce.number().int().min(1).max(65_535),
  simPort: z.coerce.number().int().min(1).max(65_535),
  pgPort: z.coerce.number().int().min(1).max(65_535),
  dataDir: z.string().min(1),
  quick: z.boolean(),
});

export type RestoreRunOptions = z.output<typeof schema>;

const FULL = {
  eventsBefore: 1_000,
  eventsBetween: 1_000,
  eventsAfter: 1_000,
  tenants: 50,
  rate: 60,
  concurrency: 8,
  timeScale: 1_000,
  drainTimeoutMs: 180_000,
};

// CI: the same story with fewer events, well under two minutes.
const QUICK: Partial<typeof FULL> = {
  eventsBefore: 150,
  eventsBetween: 150,
  eventsAfter: 200,
  tenants: 20,
  rate: 40,
  drainTimeoutMs: 90_000,
};

const FLAGS = {
  "events-before": "RESTORE_EVENTS_BEFORE",
  "events-between": "RESTORE_EVENTS_BETWEEN",
  "events-after": "RESTORE_EVENTS_AFTER",
  tenants: "RESTORE_TENANTS",
  rate: "RESTORE_RATE",
  concurrency: "RESTORE_CONCURRENCY",
  "time-scale": "RESTORE_TIME_SCALE",
  "drain-timeout-ms": "RESTORE_DRAIN_TIMEOUT_MS",
  seed: "RESTORE_SEED",
  "app-port": "RESTORE_APP_PORT",
  "sim-port": "RESTORE_SIM_PORT",
  "pg-port": "RESTORE_PG_PORT",
  "data-dir": "RESTORE_DATA_DIR",
} as const;

const SPEC = {
  command: "test:restore",
  schema,
  flags: FLAGS,
  quickVariable: "RESTORE_QUICK",
  full: FULL,
  quick: QUICK,
  fixed: {
    seed: Math.floor(Math.random() * 2 ** 31),
    appPort: 4630,
    simPort: 4631,
    pgPort: 55120,
    dataDir: ".data/h-restore",
  },
};

export function readRestoreRunOptions(argv: string[], env: Record<string, string | undefined>): RestoreRunOptions {
  return readRunOptions(SPEC, argv, env);
}
