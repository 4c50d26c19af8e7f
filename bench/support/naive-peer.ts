// The naive same-stack peer of bench:ingest: bench/naive-peer, a tiny Next.js app of its own (one
// App Router route handler, one Prisma interactive transaction), on the project's installed
// versions of Next, Prisma and standardwebhooks. Built on demand (Prisma client generated from its
// own schema, then `next build`), rebuilt when its sources or those versions change, and served
// by `next start`, the production server a team would run. The build lives outside the checkout,
// in the temporary directory, its node_modules a link to the checkout's: inside the checkout,
// Turbopack compiles the checkout's own proxy.ts into the peer's build.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { packageBin } from "../../tooling/package-bin";
import { diffSchemaToSql } from "../../tooling/migrations/wasm-engine";
import { BENCH_SECRET } from "./app-under-test";
import { startServerUnderTest, type PeerUnderTest } from "./peer-under-test";

const SOURCE = path.resolve("bench/naive-peer");
// One per checkout: each has its own node_modules.
const BUILD = path.join(
  os.tmpdir(),
  `keyhook-naive-peer-${createHash("sha256").update(process.cwd()).digest("hex").slice(0, 12)}`,
);
const SCHEMA = path.join(BUILD, "prisma", "schema.prisma");

/** Starts the naive peer on `databaseUrl` (an empty database: its tables are created here). */
export async function startNaivePeer(options: { databaseUrl: string; port: number }): Promise<PeerUnderTest> {
  ensureBuilt();
  const ddl = await diffSchemaToSql({ from: "empty", schemaPath: SCHEMA });
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    await client.query(ddl);
  } finally {
    await client.end();
  }
  return startServerUnderTest({
    ...options,
    cwd: BUILD,
    nodeArgs: [packageBin("next"), "start", "--port", String(options.port), "--hostname", "127.0.0.1"],
    env: { WEBHOOK_SECRET: BENCH_SECRET, NEXT_TELEMETRY_DISABLED: "1" },
    outcomeSql: "SELECT 'applied' AS outcome, count(*) AS n FROM webhook_events",
  });
}

function ensureBuilt(): void {
  const stamp = buildStamp();
  const stampFile = path.join(BUILD, ".keyhook-build-stamp");
  if (existsSync(path.join(BUILD, ".next", "BUILD_ID")) && readFileOr(stampFile) === stamp) return;
  console.log(`bench: building the naive peer (bench/naive-peer) in ${BUILD} …`);
  rmSync(BUILD, { recursive: true, force: true });
  cpSync(SOURCE, BUILD, { recursive: true });
  symlinkSync(path.resolve("node_modules"), path.join(BUILD, "node_modules"));
  run([packageBin("prisma"), "generate", "--schema", SCHEMA], path.resolve("."));
  run([packageBin("next"), "build"], BUILD);
  writeFileSync(stampFile, stamp);
}

function run(args: string[], cwd: string): void {
  const result = spawnSync(process.execPath, args, {
    cwd,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) throw new Error(`naive peer: \`${path.basename(args[0]!)} ${args[1]}\` failed`);
}

/** The peer's sources and the versions it is built with: a change of either rebuilds it. */
function buildStamp(): string {
  const hash = createHash("sha256");
  for (const file of filesUnder(SOURCE)) hash.update(file).update(readFileSync(path.join(SOURCE, file)));
  for (const name of ["next", "prisma", "@prisma/client", "@prisma/adapter-pg", "standardwebhooks"]) {
    hash.update(readFileSync(path.resolve("node_modules", name, "package.json")));
  }
  return hash.digest("hex");
}

function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(path.join(dir, prefix))
    .sort()
    .flatMap((entry) => {
      const relative = path.join(prefix, entry);
      return statSync(path.join(dir, relative)).isDirectory() ? filesUnder(dir, relative) : [relative];
    });
}

function readFileOr(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}
