// `npm run bench:ingest`: ingest through the production build next to baselines measured in the
// same run, on the same machine, so the ratios mean something where absolute rates do not (a
// shared 2-core machine):
//   L0       pgbench running the app's own ingest statement (read from lib/core/ingest/apply-key-event.ts)
//   app      Keyhook (`npm start`), signed unique events
//   naive    the naive same-stack peer (bench/naive-peer, built on demand into .data/naive-peer):
//            a Next.js route handler and one Prisma interactive transaction that verifies the
//            signature, claims the event id and changes the key, on the project's own versions,
//            served by `next start`. The CPU target: app ≤ 1.0× naive for the app processes.
//   bare     the bare node:http + pg consumer (bench/peer/consumer.ts): the floor
//   handler  with BENCH_BARE_HANDLER=1: the app's own route handler behind bare node:http, without
//            Next (test/support/ingest-server.ts): app − handler is what Next adds
// The arms take turns at c=8 (BENCH_ROUNDS rounds, the order rotated each round) so a noisy
// neighbour hits all. Over each measured phase, CPU time from /proc of the arm's server processes
// (its process tree) and, apart, of PostgreSQL's backends serving the arm's database, each divided
// by the events the arm applied. Then c=1 and c=32 for the app, and 100 % duplicates.
// Results: bench/results/ingest.json (latest) and a line in bench/results/history.ndjson.
//   BENCH_SECONDS (10), BENCH_ROUNDS (3), BENCH_CONCURRENCY (extra app phases, "1,32"),
//   BENCH_WARMUP_SECONDS (3: unmeasured load first; on a busy machine 3 s leave the app's first
//   measured round still JIT-compiling, so A/B comparisons of CPU per event use 10)
import pg from "pg";
import { BENCH_APPLICATION_NAME, BENCH_PORTS, BENCH_SECRET, startAppUnderTest } from "./support/app-under-test";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";
import { formatPhaseTable, runLoadPhase, type Delivery, type LoadTarget, type PhaseResult } from "./support/load-phase";
import { startNaivePeer } from "./support/naive-peer";
import { clientBackendPids } from "./support/pg-activity";
import { findPgbench, runPgbench, type PgbenchResult } from "./support/pgbench-l0";
import { startBareHandler, startPeer, type PeerUnderTest } from "./support/peer-under-test";
import {
  cpuMicrosBetween,
  detailBetween,
  sampleGroupCpu,
  sampleGroupDetail,
  samplePidsCpu,
  type GroupDetail,
} from "./support/process-cpu";
import { ratio, writeResult } from "./support/results";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const extraConcurrencies = (process.env.BENCH_CONCURRENCY ?? "1,32").split(",").filter(Boolean).map(Number);
const withBareHandler = process.env.BENCH_BARE_HANDLER === "1";

type Arm = "app" | "naive" | "bare" | "handler";
const ARM_NAMES: Record<Arm, string> = {
  app: "Keyhook",
  naive: "naive Next.js + Prisma peer",
  bare: "bare node:http + pg consumer",
  handler: "Keyhook's handler without Next",
};
type Target = LoadTarget & { pgid: number; databaseUrl: string };
type MeasuredPhase = PhaseResult & {
  arm: Arm;
  /** The alternating round (c=8), or null for the app's other phases. */
  round: number | null;
  /** CPU of the arm's server processes (its process tree). */
  cpuMicros: number;
  cpuMicrosPerApplied: number | null;
  /** CPU of PostgreSQL's client backends serving the arm's database. */
  pgCpuMicros: number;
  pgCpuMicrosPerApplied: number | null;
  /** user / system split of the server processes' CPU and their main threads' context switches. */
  detail: GroupDetail;
};

assertSignerMatchesLibrary(BENCH_SECRET);
const pgbench = findPgbench();
const app = await startAppUnderTest({ port: BENCH_PORTS.app, pgPort: BENCH_PORTS.pg });
const admin = new pg.Client({ connectionString: app.adminUrl, application_name: BENCH_APPLICATION_NAME });
const baselines: PeerUnderTest[] = [];
try {
  await admin.connect();
  const targets: Partial<Record<Arm, Target>> = { app };
  const start = async (arm: Arm, peer: Promise<PeerUnderTest>) => {
    const started = await peer;
    baselines.push(started);
    targets[arm] = started;
  };
  await start(
    "naive",
    startNaivePeer({ databaseUrl: await app.createDatabase("keyhook_naive"), port: BENCH_PORTS.naive }),
  );
  await start("bare", startPeer({ databaseUrl: await app.createDatabase("keyhook_peer"), port: BENCH_PORTS.peer }));
  if (withBareHandler)
    await start(
      "handler",
      startBareHandler({ databaseUrl: await app.createDatabase("keyhook_bare"), port: BENCH_PORTS.bare }),
    );
  const arms = Object.keys(targets) as Arm[];
  const stream = createEventStream({ secret: BENCH_SECRET, tenants: 1000, runId: Date.now().toString(36) });

  const backends = (target: Target) =>
    clientBackendPids(admin, new URL(target.databaseUrl).pathname.slice(1), BENCH_APPLICATION_NAME);
  const measure = async (
    arm: Arm,
    round: number | null,
    name: string,
    connections: number,
    nextDelivery: () => Delivery,
  ): Promise<MeasuredPhase> => {
    const target = targets[arm]!;
    const pgBefore = samplePidsCpu(await backends(target));
    const before = sampleGroupCpu(target.pgid);
    const detailBefore = sampleGroupDetail(target.pgid);
    const phase = await runLoadPhase(target, { name, connections, seconds, nextDelivery });
    const cpuMicros = cpuMicrosBetween(before, sampleGroupCpu(target.pgid));
    const detail = detailBetween(detailBefore, sampleGroupDetail(target.pgid));
    const pgCpuMicros = cpuMicrosBetween(pgBefore, samplePidsCpu(await backends(target)));
    const per = (micros: number) => (phase.applied > 0 ? Math.round(micros / phase.applied) : null);
    return {
      ...phase,
      arm,
      round,
      cpuMicros,
      cpuMicrosPerApplied: per(cpuMicros),
      pgCpuMicros,
      pgCpuMicrosPerApplied: per(pgCpuMicros),
      detail,
    };
  };

  // Warm-up: JIT, pools, Next's caches. Not reported.
  for (const arm of arms)
    await runLoadPhase(targets[arm]!, {
      name: "warm-up",
      connections: 8,
      seconds: warmupSeconds,
      nextDelivery: () => stream.next(),
    });

  const l0: PgbenchResult | null = pgbench
    ? runPgbench({ pgbench, databaseUrl: app.databaseUrl, connections: 8, seconds })
    : null;
  if (!pgbench) console.log("bench: pgbench not found (apt-get install postgresql-contrib): L0 skipped");

  const alternating: MeasuredPhase[] = [];
  const firstEvents: { id: string; body: string }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = arms.map((_, i) => arms[(i + round - 1) % arms.length]!);
    for (const arm of order) {
      alternating.push(
        await measure(arm, round, `${arm} unique c=8 #${round}`, 8, () => {
          const event = stream.next();
          if (arm === "app" && firstEvents.length < 100) firstEvents.push(event);
          return event;
        }),
      );
    }
  }
  const others: MeasuredPhase[] = [];
  for (const connections of extraConcurrencies)
    others.push(await measure("app", null, `app unique c=${connections}`, connections, () => stream.next()));
  let cursor = 0;
  const duplicate = (): Delivery => {
    const event = firstEvents[cursor++ % firstEvents.length]!;
    return { body: event.body, headers: stream.sign(event.id, event.body) };
  };
  others.push(await measure("app", null, "app 100% duplicates c=8", 8, duplicate));
  const peakRssMiB = Math.round(app.peakRssMiB());

  // One arm's alternating c=8 phases, summed.
  const summarize = (arm: Arm) => {
    const phases = alternating.filter((p) => p.arm === arm);
    const sum = (pick: (p: MeasuredPhase) => number) => phases.reduce((s, p) => s + pick(p), 0);
    const applied = sum((p) => p.applied);
    const per = (micros: number) => (applied ? Math.round(micros / applied) : null);
    return {
      name: ARM_NAMES[arm],
      applied,
      appliedPerSec: Math.round(applied / (rounds * seconds)),
      p99: Math.max(...phases.map((p) => p.p99)),
      cpuMicrosPerApplied: per(sum((p) => p.cpuMicros)),
      pgCpuMicrosPerApplied: per(sum((p) => p.pgCpuMicros)),
      totalCpuMicrosPerApplied: per(sum((p) => p.cpuMicros + p.pgCpuMicros)),
    };
  };
  const summaries = Object.fromEntries(arms.map((arm) => [arm, summarize(arm)])) as Record<
    Arm,
    ReturnType<typeof summarize>
  >;
  const against = (other: Arm) => {
    const a = summaries.app;
    const b = summaries[other];
    if (!b) return null;
    const of = (x: number | null, y: number | null) => (x && y ? ratio(x, y) : null);
    // Round by round, the app's CPU per event against this arm's in the same round.
    const byRound = Array.from({ length: rounds }, (_, i) => {
      const [x, y] = (["app", other] as const).map((arm) =>
        alternating.find((p) => p.arm === arm && p.round === i + 1),
      );
      return of(x?.cpuMicrosPerApplied ?? null, y?.cpuMicrosPerApplied ?? null);
    });
    return {
      appProcesses: of(a.cpuMicrosPerApplied, b.cpuMicrosPerApplied),
      postgres: of(a.pgCpuMicrosPerApplied, b.pgCpuMicrosPerApplied),
      both: of(a.totalCpuMicrosPerApplied, b.totalCpuMicrosPerApplied),
      throughput: ratio(a.appliedPerSec, b.appliedPerSec),
      appProcessesByRound: byRound,
    };
  };
  const ratios = {
    appOverNaive: against("naive"),
    appOverBare: against("bare"),
    appOverHandler: against("handler"),
    appOverL0Throughput: l0 ? ratio(summaries.app.appliedPerSec, Math.round(l0.tps)) : null,
  };

  console.log(`\n${formatPhaseTable([...alternating, ...others])}`);
  console.log("\nCPU µs per applied event (/proc: the server's processes; PostgreSQL's backends of its database)");
  console.log(
    `${"".padEnd(28)} ${"server".padStart(8)} ${"user".padStart(6)} ${"system".padStart(6)} ${"pg".padStart(6)}  switches/event (voluntary / involuntary)`,
  );
  for (const p of [...alternating, ...others]) {
    const per = (n: number) => (p.applied > 0 ? (n / p.applied).toFixed(0) : "n/a");
    const perSwitch = (n: number) => (p.applied > 0 ? (n / p.applied).toFixed(2) : "n/a");
    console.log(
      `${p.name.padEnd(28)} ${String(p.cpuMicrosPerApplied ?? "n/a").padStart(8)} ${per(p.detail.userMicros).padStart(6)} ${per(p.detail.systemMicros).padStart(6)} ${String(p.pgCpuMicrosPerApplied ?? "n/a").padStart(6)}  ${perSwitch(p.detail.voluntarySwitches)} / ${perSwitch(p.detail.involuntarySwitches)}`,
    );
  }
  if (l0)
    console.log(
      `\nL0 pgbench (the app's ingest statement, c=8): ${l0.tps.toFixed(0)} tps, avg ${l0.latencyAvgMs.toFixed(2)} ms, ${l0.failed} failed`,
    );
  console.log(`\nat c=8 over ${rounds} alternating rounds of ${seconds} s (CPU µs per applied event):`);
  for (const arm of arms) {
    const s = summaries[arm];
    console.log(
      `  ${arm.padEnd(8)} ${String(s.appliedPerSec).padStart(5)} applied/s, p99 ${s.p99} ms, server ${s.cpuMicrosPerApplied}, PostgreSQL ${s.pgCpuMicrosPerApplied}, both ${s.totalCpuMicrosPerApplied}  (${s.name})`,
    );
  }
  for (const [other, r] of [
    ["naive", ratios.appOverNaive],
    ["bare", ratios.appOverBare],
    ["handler", ratios.appOverHandler],
  ] as const) {
    if (!r) continue;
    console.log(
      `  app / ${other}: server ${r.appProcesses}× (rounds ${r.appProcessesByRound.join(", ")}), PostgreSQL ${r.postgres}×, both ${r.both}×; throughput ${r.throughput}×`,
    );
  }
  const target = ratios.appOverNaive?.appProcesses;
  console.log(
    `  target (server CPU ≤ 1.0× the naive peer): ${target === null || target === undefined ? "n/a" : target <= 1 ? `met (${target}×)` : `NOT met (${target}×)`}`,
  );
  console.log(`peak RSS of the app's largest process: ${peakRssMiB} MiB`);
  writeResult("ingest", {
    appNodeOptions: process.env.BENCH_APP_NODE_OPTIONS ?? null,
    warmupSeconds,
    seconds,
    rounds,
    l0,
    phases: [...alternating, ...others],
    arms: summaries,
    ratios,
    peakRssMiB,
  });
} finally {
  await admin.end().catch(() => undefined);
  for (const baseline of baselines.reverse()) await baseline.stop();
  await app.stop();
}
