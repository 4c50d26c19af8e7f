// `npm run bench:ingest`: ingest through the production build's route handler next to two
// baselines measured in the same run, on the same machine, so the ratios mean something where
// absolute rates do not (a shared 2-core machine):
//   L0    pgbench running the app's own ingest statement (read from lib/ingest/apply-key-event.ts)
//   peer  the bare node:http + pg consumer (bench/peer/consumer.ts), same event stream
//   app   Keyhook, signed unique events
//   bare  with BENCH_BARE_HANDLER=1: the app's own route handler behind bare node:http, without
//         Next (test/support/ingest-server.ts): app − bare is what Next's route module adds
// App and peer (and bare) alternate at c=8 (BENCH_ROUNDS rounds) so a noisy neighbour hits all; CPU time of
// each server's process group is read from /proc over each measured phase and divided by the
// events it applied. Then c=1 and c=32 for the app, and 100 % duplicates.
// Results: bench/results/ingest.json (latest) and a line in bench/results/history.ndjson.
//   BENCH_SECONDS (10), BENCH_ROUNDS (2), BENCH_CONCURRENCY (extra app phases, "1,32"),
//   BENCH_WARMUP_SECONDS (3: unmeasured load first; on a busy machine 3 s leave the app's first
//   measured round still JIT-compiling, so A/B comparisons of CPU per event use 10)
import { BENCH_PORTS, BENCH_SECRET, startAppUnderTest } from "./support/app-under-test";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";
import { formatPhaseTable, runLoadPhase, type Delivery, type LoadTarget, type PhaseResult } from "./support/load-phase";
import { findPgbench, runPgbench, type PgbenchResult } from "./support/pgbench-l0";
import { startBareHandler, startPeer, type PeerUnderTest } from "./support/peer-under-test";
import {
  cpuMicrosBetween,
  detailBetween,
  sampleGroupCpu,
  sampleGroupDetail,
  type GroupDetail,
} from "./support/process-cpu";
import { ratio, writeResult } from "./support/results";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const extraConcurrencies = (process.env.BENCH_CONCURRENCY ?? "1,32").split(",").filter(Boolean).map(Number);
const withBareHandler = process.env.BENCH_BARE_HANDLER === "1";

type Server = "app" | "peer" | "bare";
type MeasuredPhase = PhaseResult & {
  server: Server;
  cpuMicros: number;
  cpuMicrosPerApplied: number | null;
  /** user / system split of the CPU time and the main threads' context switches, over the phase. */
  detail: GroupDetail;
};

assertSignerMatchesLibrary(BENCH_SECRET);
const pgbench = findPgbench();
const app = await startAppUnderTest({ port: BENCH_PORTS.app, pgPort: BENCH_PORTS.pg });
const peer = await startPeer({ databaseUrl: await app.createDatabase("keyhook_peer"), port: BENCH_PORTS.peer });
let bare: PeerUnderTest | null = null;
try {
  if (withBareHandler)
    bare = await startBareHandler({ databaseUrl: await app.createDatabase("keyhook_bare"), port: BENCH_PORTS.bare });
  const stream = createEventStream({ secret: BENCH_SECRET, tenants: 1000, runId: Date.now().toString(36) });
  const measure = async (
    server: Server,
    target: LoadTarget & { pgid: number },
    name: string,
    connections: number,
    nextDelivery: () => Delivery,
  ): Promise<MeasuredPhase> => {
    const before = sampleGroupCpu(target.pgid);
    const detailBefore = sampleGroupDetail(target.pgid);
    const phase = await runLoadPhase(target, { name, connections, seconds, nextDelivery });
    const cpuMicros = cpuMicrosBetween(before, sampleGroupCpu(target.pgid));
    return {
      ...phase,
      server,
      cpuMicros,
      detail: detailBetween(detailBefore, sampleGroupDetail(target.pgid)),
      cpuMicrosPerApplied: phase.applied > 0 ? Math.round(cpuMicros / phase.applied) : null,
    };
  };

  // Warm-up: JIT, pools, Next's caches. Not reported.
  await runLoadPhase(app, {
    name: "warm-up",
    connections: 8,
    seconds: warmupSeconds,
    nextDelivery: () => stream.next(),
  });
  await runLoadPhase(peer, {
    name: "warm-up",
    connections: 8,
    seconds: warmupSeconds,
    nextDelivery: () => stream.next(),
  });
  if (bare)
    await runLoadPhase(bare, {
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
    alternating.push(
      await measure("app", app, `app unique c=8 #${round}`, 8, () => {
        const event = stream.next();
        if (firstEvents.length < 100) firstEvents.push(event);
        return event;
      }),
    );
    if (bare) alternating.push(await measure("bare", bare, `bare unique c=8 #${round}`, 8, () => stream.next()));
    alternating.push(await measure("peer", peer, `peer unique c=8 #${round}`, 8, () => stream.next()));
  }
  const others: MeasuredPhase[] = [];
  for (const connections of extraConcurrencies)
    others.push(await measure("app", app, `app unique c=${connections}`, connections, () => stream.next()));
  let cursor = 0;
  const duplicate = (): Delivery => {
    const event = firstEvents[cursor++ % firstEvents.length]!;
    return { body: event.body, headers: stream.sign(event.id, event.body) };
  };
  others.push(await measure("app", app, "app 100% duplicates c=8", 8, duplicate));
  const peakRssMiB = Math.round(app.peakRssMiB());

  const sum = (server: Server, pick: (p: MeasuredPhase) => number) =>
    alternating.filter((p) => p.server === server).reduce((s, p) => s + pick(p), 0);
  // One server's alternating c=8 phases, summed.
  const summarize = (server: Server) => {
    const applied = sum(server, (p) => p.applied);
    return {
      appliedPerSec: Math.round(applied / (rounds * seconds)),
      p99: Math.max(...alternating.filter((p) => p.server === server).map((p) => p.p99)),
      cpuMicrosPerApplied: applied ? Math.round(sum(server, (p) => p.cpuMicros) / applied) : null,
    };
  };
  const appC8 = summarize("app");
  const peerC8 = summarize("peer");
  const c8 = {
    appAppliedPerSec: appC8.appliedPerSec,
    peerAppliedPerSec: peerC8.appliedPerSec,
    appP99: appC8.p99,
    peerP99: peerC8.p99,
    appCpuMicrosPerApplied: appC8.cpuMicrosPerApplied,
    peerCpuMicrosPerApplied: peerC8.cpuMicrosPerApplied,
    l0Tps: l0 ? Math.round(l0.tps) : null,
  };
  const bareC8 = bare ? summarize("bare") : null;
  const ratios = {
    appOverPeerThroughput: ratio(c8.appAppliedPerSec, c8.peerAppliedPerSec),
    appOverL0Throughput: c8.l0Tps ? ratio(c8.appAppliedPerSec, c8.l0Tps) : null,
    appOverPeerCpuPerEvent:
      c8.appCpuMicrosPerApplied && c8.peerCpuMicrosPerApplied
        ? ratio(c8.appCpuMicrosPerApplied, c8.peerCpuMicrosPerApplied)
        : null,
    appOverBareCpuPerEvent:
      c8.appCpuMicrosPerApplied && bareC8?.cpuMicrosPerApplied
        ? ratio(c8.appCpuMicrosPerApplied, bareC8.cpuMicrosPerApplied)
        : null,
  };

  console.log(`\n${formatPhaseTable([...alternating, ...others])}`);
  console.log("\nCPU µs per applied event (utime+stime of the server's process group, /proc)");
  console.log(
    `${"".padEnd(28)} ${"total".padStart(8)} ${"user".padStart(6)} ${"system".padStart(6)}  switches/event (voluntary / involuntary)`,
  );
  for (const p of [...alternating, ...others]) {
    const per = (n: number) => (p.applied > 0 ? (n / p.applied).toFixed(0) : "n/a");
    const perSwitch = (n: number) => (p.applied > 0 ? (n / p.applied).toFixed(2) : "n/a");
    console.log(
      `${p.name.padEnd(28)} ${String(p.cpuMicrosPerApplied ?? "n/a").padStart(8)} ${per(p.detail.userMicros).padStart(6)} ${per(p.detail.systemMicros).padStart(6)}  ${perSwitch(p.detail.voluntarySwitches)} / ${perSwitch(p.detail.involuntarySwitches)}`,
    );
  }
  if (l0)
    console.log(
      `\nL0 pgbench (the app's ingest statement, c=8): ${l0.tps.toFixed(0)} tps, avg ${l0.latencyAvgMs.toFixed(2)} ms, ${l0.failed} failed`,
    );
  console.log(`\nat c=8 over ${rounds} alternating rounds of ${seconds} s:`);
  console.log(
    `  app  ${c8.appAppliedPerSec} applied/s, p99 ${c8.appP99} ms, ${c8.appCpuMicrosPerApplied} CPU µs/event`,
  );
  console.log(
    `  peer ${c8.peerAppliedPerSec} applied/s, p99 ${c8.peerP99} ms, ${c8.peerCpuMicrosPerApplied} CPU µs/event`,
  );
  if (bareC8)
    console.log(
      `  bare ${bareC8.appliedPerSec} applied/s, p99 ${bareC8.p99} ms, ${bareC8.cpuMicrosPerApplied} CPU µs/event` +
        ` (the app's handler without Next: Next's route module adds ${c8.appCpuMicrosPerApplied! - bareC8.cpuMicrosPerApplied!} µs, app/bare ${ratios.appOverBareCpuPerEvent})`,
    );
  console.log(
    `  ratios: app/peer throughput ${ratios.appOverPeerThroughput}, app/L0 throughput ${ratios.appOverL0Throughput}, app/peer CPU per event ${ratios.appOverPeerCpuPerEvent}`,
  );
  console.log(`peak RSS of the app's largest process: ${peakRssMiB} MiB`);
  writeResult("ingest", {
    appNodeOptions: process.env.BENCH_APP_NODE_OPTIONS ?? null,
    warmupSeconds,
    seconds,
    rounds,
    l0,
    phases: [...alternating, ...others],
    c8,
    bare: bareC8,
    ratios,
    peakRssMiB,
  });
} finally {
  await bare?.stop();
  await peer.stop();
  await app.stop();
}
