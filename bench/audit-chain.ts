// `npm run bench:audit`: what binding every audit entry into the hash chain costs the two paths
// people wait on, in one run: a password sign-in (lib/core/auth/verify-credentials.ts) and a key
// revoke from the dashboard (lib/core/keys/revoke-key.ts), each by BENCH_WRITERS concurrent callers,
// with the chain's trigger on and off in alternating rounds on the same database (off: the trigger
// disabled, so the same statement appends without a seq or hashes). The hash cost of passwords is
// lowered (PASSWORD_SCRYPT_LOG_N=10, SIGN_IN_HASH_CONCURRENCY = writers) so the database part of a
// sign-in is not hidden behind scrypt. Prints p50/p95/p99 per path and arm and the ratios, and
// writes bench/results/audit-chain.json.
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { freshMigratedDatabase } from "./support/fresh-database";
import { writeResult } from "./support/results";

const writers = Number(process.env.BENCH_WRITERS ?? 8);
const perRound = Number(process.env.BENCH_OPS ?? 200);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);

const server = await startEmbeddedPostgres({
  dataDir: process.env.BENCH_PG_DATA_DIR ?? ".data/bench-audit-postgres",
  port: Number(process.env.BENCH_PG_PORT ?? 55420),
  database: "postgres",
});
try {
  process.env.DATABASE_URL = await freshMigratedDatabase(server, "keyhook_bench_audit");
  process.env.DATABASE_POOL_SIZE = String(writers + 2);
  process.env.PASSWORD_SCRYPT_LOG_N = "10";
  process.env.SIGN_IN_HASH_CONCURRENCY = String(writers);
  process.env.LOG_LEVEL = "silent";
  const { prisma, disconnectDb } = await import("../lib/core/db/client");
  const { hashPassword } = await import("../lib/core/auth/passwords");
  const { verifyCredentials } = await import("../lib/core/auth/verify-credentials");
  const { revokeKey } = await import("../lib/core/keys/revoke-key");

  // The "off" arm appends without a seq: the NOT NULL check goes for this database only.
  await prisma.$executeRawUnsafe(`ALTER TABLE audit_log DROP CONSTRAINT audit_log_seq_present`);
  const hash = await hashPassword("bench-password-1");
  for (let w = 0; w < writers; w++)
    await prisma.user.create({
      data: { id: `u${w}`, email: `admin${w}@bench.test`, role: "platform_admin", passwordHash: hash },
    });
  const tenants = 64;
  for (let t = 0; t < tenants; t++)
    await prisma.tenant.create({ data: { id: `district-${t}`, name: `District ${t}` } });
  const actor = { id: "u0", email: "admin0@bench.test", name: null, role: "platform_admin" as const, tenantId: null };

  let keyCounter = 0;
  const paths = {
    "sign-in": async (w: number) => {
      const result = await verifyCredentials({
        email: `admin${w}@bench.test`,
        password: "bench-password-1",
        address: `10.0.0.${w}`,
      });
      if (!result.ok) throw new Error("sign-in refused");
    },
    revoke: async (w: number) => {
      const id = `key_${w}_${++keyCounter}`;
      await prisma.apiKey.create({ data: { id, tenantId: `district-${keyCounter % tenants}`, status: "superseded" } });
      const started = performance.now();
      await revokeKey({ actor, keyId: id });
      return performance.now() - started;
    },
  } as const;

  type Arm = "chain" | "no_chain";
  const samples: Record<string, Record<Arm, number[]>> = {
    "sign-in": { chain: [], no_chain: [] },
    revoke: { chain: [], no_chain: [] },
  };
  const setArm = (arm: Arm) =>
    prisma.$executeRawUnsafe(`ALTER TABLE audit_log ${arm === "chain" ? "ENABLE" : "DISABLE"} TRIGGER audit_log_chain`);

  for (let round = 0; round < rounds; round++) {
    for (const arm of (round % 2 === 0 ? ["chain", "no_chain"] : ["no_chain", "chain"]) as Arm[]) {
      await setArm(arm);
      for (const [name, run] of Object.entries(paths)) {
        let next = 0;
        await Promise.all(
          Array.from({ length: writers }, async (_, w) => {
            while (next < perRound) {
              next++;
              const started = performance.now();
              const own = await run(w);
              samples[name]![arm].push(typeof own === "number" ? own : performance.now() - started);
            }
          }),
        );
      }
    }
  }
  await setArm("chain");
  const chained = await prisma.auditLog.count({ where: { seq: { not: null } } });

  const pct = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
  };
  const figures = Object.fromEntries(
    Object.entries(samples).map(([name, arms]) => {
      const of = (arm: Arm) => ({
        n: arms[arm].length,
        p50Ms: pct(arms[arm], 50),
        p95Ms: pct(arms[arm], 95),
        p99Ms: pct(arms[arm], 99),
      });
      const chain = of("chain");
      const noChain = of("no_chain");
      return [
        name,
        {
          chain,
          noChain,
          ratio: {
            p50: Math.round((chain.p50Ms / noChain.p50Ms) * 100) / 100,
            p99: Math.round((chain.p99Ms / noChain.p99Ms) * 100) / 100,
          },
        },
      ];
    }),
  );
  for (const [name, f] of Object.entries(figures) as [
    string,
    {
      chain: { p50Ms: number; p95Ms: number; p99Ms: number; n: number };
      noChain: { p50Ms: number; p95Ms: number; p99Ms: number };
      ratio: { p50: number; p99: number };
    },
  ][])
    console.log(
      `${name.padEnd(8)} chain p50 ${f.chain.p50Ms} ms p95 ${f.chain.p95Ms} p99 ${f.chain.p99Ms} | without p50 ${f.noChain.p50Ms} p95 ${f.noChain.p95Ms} p99 ${f.noChain.p99Ms} | ratio p50 ${f.ratio.p50} p99 ${f.ratio.p99} (n=${f.chain.n} per arm)`,
    );
  writeResult("audit-chain", { writers, perRound, rounds, chainedEntries: chained, ...figures });
  await disconnectDb();
} finally {
  await server.stop();
}
