// `npm run bench:function -- <function> [git-revision]`: what a change of one plpgsql function
// (prisma/sql/<function>.sql) costs the ingest statement, measured the only way that means
// anything on a shared machine: the working tree's definition (B) against the one at the git
// revision (A, default HEAD), swapped in turn on ONE database and measured with pgbench L0 (the
// app's own ingest statement, bench/support/pgbench-l0.ts) in alternating rounds, so a noisy
// neighbour hits both. Sequences are dense, as the provider sends them (each pgbench client is a
// district counting 1, 2, 3 …), unless BENCH_RANDOM_SEQUENCES=1.
// The two definitions must have the same signature (the statement calls the working tree's).
//   BENCH_SECONDS (10), BENCH_ROUNDS (4), BENCH_CONNECTIONS (8)
// Results: bench/results/function-ab.json and a line in bench/results/history.ndjson.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import pg from "pg";
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { BENCH_PORTS } from "./support/app-under-test";
import { createDenseSequencesSql, findPgbench, runPgbench } from "./support/pgbench-l0";
import { ratio, writeResult } from "./support/results";
import { freshMigratedDatabase } from "./support/fresh-database";

const [name, revision = "HEAD"] = process.argv.slice(2);
if (!name || !/^[a-z_]+$/.test(name)) {
  console.error("usage: npm run bench:function -- <function_name> [git-revision]");
  process.exit(2);
}
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const denseSequences = process.env.BENCH_RANDOM_SEQUENCES !== "1";

const pgbench = findPgbench();
if (!pgbench) {
  console.error("bench:function needs pgbench (apt-get install postgresql-contrib)");
  process.exit(2);
}
const source = `prisma/sql/${name}.sql`;
const definitions = {
  A: execFileSync("git", ["show", `${revision}:${source}`], { encoding: "utf8" }),
  B: readFileSync(source, "utf8"),
};
if (definitions.A === definitions.B) console.warn(`bench: ${source} is the same at ${revision}: expect a ratio near 1`);

const server = await startEmbeddedPostgres({
  dataDir: ".data/bench-postgres",
  port: BENCH_PORTS.pg,
  database: "postgres",
  settings: { max_connections: "100", shared_buffers: "512MB" },
});
try {
  const databaseUrl = await freshMigratedDatabase(server, "keyhook_function_ab");
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query(createDenseSequencesSql(connections + 1));

  const tps: Record<"A" | "B", number[]> = { A: [], B: [] };
  for (let round = 1; round <= rounds; round++) {
    // Alternate which goes first, so neither always follows the other's vacuum debt.
    for (const variant of round % 2 ? (["A", "B"] as const) : (["B", "A"] as const)) {
      await db.query(definitions[variant]);
      await db.query("CHECKPOINT");
      const result = runPgbench({ pgbench, databaseUrl, connections, seconds, denseSequences });
      if (result.failed > 0) throw new Error(`pgbench: ${result.failed} failed transactions (${variant})`);
      tps[variant].push(Math.round(result.tps));
      console.log(
        `round ${round} ${variant} (${variant === "A" ? revision : "working tree"}): ${Math.round(result.tps)} tps`,
      );
    }
  }
  await db.end();
  const mean = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) / values.length);
  const summary = { A: mean(tps.A), B: mean(tps.B) };
  console.log(
    `${name}: ${revision} ${summary.A} tps, working tree ${summary.B} tps (mean of ${rounds}, c=${connections}, ` +
      `${denseSequences ? "dense" : "random"} sequences): B/A ${ratio(summary.B, summary.A)}`,
  );
  writeResult("function-ab", {
    function: name,
    revision,
    connections,
    seconds,
    denseSequences,
    tps,
    meanTps: summary,
    ratioBToA: ratio(summary.B, summary.A),
  });
} finally {
  await server.stop();
}
