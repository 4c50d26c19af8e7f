// `npm run bench:pooler`: the price of a transaction-mode PgBouncer. The production
// build (`npm start`'s launcher) takes signed unique events at concurrency 8 in three set-ups,
// alternated round by round in the same run so the shared machine's noise hits all of them:
//   direct         DATABASE_URL = PostgreSQL, named (prepared) statements — the default
//   direct-unnamed DATABASE_URL = PostgreSQL declared pooled (pgbouncer=true): unnamed
//                  statements on a direct connection, the price of unnamed statements alone
//   pooled         DATABASE_URL = PgBouncer (transaction mode, pgbouncer=true), DIRECT_DATABASE_URL
//                  = PostgreSQL: what a pooled deployment runs
// Prints applied events/s and p99 per set-up (median of the rounds) and the ratios to `direct`;
// writes bench/results/pooler.json. The pooler should cost less than 15 %.
// BENCH_WARMUP_SECONDS (3): unmeasured load before each measured phase (the app restarts for each
// set-up, so each one starts cold; 10 leaves the JIT and PgBouncer's server connections warm).
import os from "node:os";
import { BENCH_SECRET, startAppUnderTest } from "./support/app-under-test";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";
import { formatPhaseTable, runLoadPhase, type PhaseResult } from "./support/load-phase";
import { writeResult } from "./support/results";
import { startPgBouncer } from "../test/support/pgbouncer";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connections = Number(process.env.BENCH_CONCURRENCY ?? 8);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const appPort = Number(process.env.BENCH_APP_PORT ?? 4600);
const pgPort = Number(process.env.BENCH_PG_PORT ?? 54349);
const bouncerPort = Number(process.env.BENCH_PGBOUNCER_PORT ?? 54350);
const PG_USER_URL = `postgresql://keyhook:keyhook@127.0.0.1:${pgPort}`;

type Setup = "direct" | "direct-unnamed" | "pooled";
const setups: Record<Setup, Record<string, string>> = {
  direct: { DATABASE_URL: `${PG_USER_URL}/keyhook_bench`, DIRECT_DATABASE_URL: "" },
  "direct-unnamed": {
    DATABASE_URL: `${PG_USER_URL}/keyhook_bench?pgbouncer=true`,
    DIRECT_DATABASE_URL: `${PG_USER_URL}/keyhook_bench`,
  },
  pooled: {
    DATABASE_URL: `postgresql://keyhook:keyhook@127.0.0.1:${bouncerPort}/keyhook_bench?pgbouncer=true`,
    DIRECT_DATABASE_URL: `${PG_USER_URL}/keyhook_bench`,
  },
};

assertSignerMatchesLibrary(BENCH_SECRET);
// In front of the bench PostgreSQL that startAppUnderTest (re)starts each round; PgBouncer
// connects upstream only when a client arrives.
const bouncer = await startPgBouncer({
  upstreamUrl: `${PG_USER_URL}/postgres`,
  port: bouncerPort,
  dir: ".data/bench-pgbouncer",
});
const phases: (PhaseResult & { setup: Setup; round: number; pgbouncerCpuSeconds: number })[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const setup of Object.keys(setups) as Setup[]) {
      const app = await startAppUnderTest({ port: appPort, pgPort, env: setups[setup] });
      try {
        const stream = createEventStream({
          secret: BENCH_SECRET,
          tenants: 1000,
          runId: `${setup}${round}${Date.now().toString(36)}`,
        });
        await runLoadPhase(app, {
          name: "warm-up",
          connections,
          seconds: warmupSeconds,
          nextDelivery: () => stream.next(),
        });
        const cpuBefore = bouncer.cpuSeconds();
        const phase = await runLoadPhase(app, {
          name: `${setup} c=${connections} #${round}`,
          connections,
          seconds,
          nextDelivery: () => stream.next(),
        });
        phases.push({ ...phase, setup, round, pgbouncerCpuSeconds: bouncer.cpuSeconds() - cpuBefore });
        console.log(formatPhaseTable([phase]).split("\n")[1]);
      } finally {
        await app.stop();
      }
    }
  }
} finally {
  await bouncer.stop();
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const summary = Object.fromEntries(
  (Object.keys(setups) as Setup[]).map((setup) => {
    const mine = phases.filter((p) => p.setup === setup);
    return [
      setup,
      {
        appliedPerSec: median(mine.map((p) => p.appliedPerSec)),
        p99: median(mine.map((p) => p.p99)),
        non2xx: mine.reduce((s, p) => s + p.non2xx, 0),
      },
    ];
  }),
) as Record<Setup, { appliedPerSec: number; p99: number; non2xx: number }>;
const base = summary.direct;
const ratios = Object.fromEntries(
  (Object.keys(summary) as Setup[]).map((setup) => [
    setup,
    { throughput: summary[setup].appliedPerSec / base.appliedPerSec, p99: summary[setup].p99 / base.p99 },
  ]),
);

console.log(`\n${formatPhaseTable(phases)}\n`);
console.log(
  `median of ${rounds} round(s), c=${connections}, ${seconds} s each      applied/s   p99 ms   vs direct: throughput  p99`,
);
for (const setup of Object.keys(summary) as Setup[]) {
  const s = summary[setup];
  console.log(
    `${setup.padEnd(44)} ${s.appliedPerSec.toFixed(0).padStart(9)} ${s.p99.toFixed(1).padStart(8)}   ${ratios[setup]!.throughput.toFixed(3).padStart(20)} ${ratios[setup]!.p99.toFixed(2).padStart(5)}`,
  );
}
const pooledPhases = phases.filter((p) => p.setup === "pooled");
const bouncerCpu =
  pooledPhases.reduce((sum, p) => sum + p.pgbouncerCpuSeconds, 0) / pooledPhases.reduce((sum, p) => sum + p.seconds, 0);
console.log(
  `PgBouncer itself used ${(bouncerCpu * 100).toFixed(0)} % of one core during the pooled phases (on the same ${os.cpus().length} cores as the app, PostgreSQL and the load generator)`,
);
const cost = 1 - ratios.pooled!.throughput;
console.log(`pooler cost: ${(cost * 100).toFixed(1)} % of applied events/s (target < 15 %)`);
writeResult("pooler", {
  seconds,
  warmupSeconds,
  rounds,
  connections,
  phases,
  summary,
  ratios,
  poolerCost: cost,
  pgbouncerCoreShare: bouncerCpu,
});
