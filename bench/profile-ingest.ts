// `node --conditions=react-server --import tsx bench/profile-ingest.ts [--cpu-prof]`: runs the
// production server `npm start` runs (server/serve.ts, so node flags reach the server process)
// under 8 connections of signed unique events for 8 s; with --cpu-prof writes a V8 CPU profile
// to bench/results/profiles/ and prints where its self time went (bench/support/summarize-profile.ts).
// Prints req/s and p99. Ports: BENCH_APP_PORT (4602), BENCH_PG_PORT (54349).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import autocannon from "autocannon";
import { startEmbeddedPostgres } from "../tooling/dev/embedded-postgres";
import { createEventStream } from "./support/event-stream";
import { summarizeProfile } from "./support/summarize-profile";

import { BENCH_SECRET as SECRET } from "./support/app-under-test";
import { freshMigratedDatabase } from "./support/fresh-database";
import { TEST_AUDIT_SIGNING_KEY, TEST_ENCRYPTION_KEYS } from "../test/support/encryption-keys";
const profile = process.argv.includes("--cpu-prof");
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const appPort = Number(process.env.BENCH_APP_PORT ?? 4602);
const pgPort = Number(process.env.BENCH_PG_PORT ?? 54349);
const startedAt = Date.now();

const server = await startEmbeddedPostgres({ dataDir: ".data/bench-postgres", port: pgPort, database: "postgres" });
const databaseUrl = await freshMigratedDatabase(server, "keyhook_profile");

mkdirSync("bench/results/profiles", { recursive: true });
const nodeArgs = profile ? ["--cpu-prof", "--cpu-prof-dir=bench/results/profiles"] : [];
// As `npm start` runs it: the bundled server when the build has one (scripts/boot.ts).
const serverArgs = existsSync(".next/keyhook-serve.mjs")
  ? [".next/keyhook-serve.mjs"]
  : ["--import", "tsx", "server/serve.ts"];
const next = spawn(process.execPath, [...nodeArgs, ...serverArgs], {
  stdio: ["ignore", "ignore", "inherit"],
  env: {
    ...process.env,
    PORT: String(appPort),
    LISTEN_HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRETS: SECRET,
    NEXTAUTH_SECRET: "profile-only-session-secret-0123456789abcdef",
    SECRETS_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
    AUDIT_SIGNING_KEY: TEST_AUDIT_SIGNING_KEY,
    NODE_ENV: "production",
  },
});
try {
  while (
    !(await fetch(`http://127.0.0.1:${appPort}/api/health`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await new Promise((r) => setTimeout(r, 200));
  const stream = createEventStream({ secret: SECRET, tenants: 1000, runId: "p" + Date.now().toString(36) });
  const result = await autocannon({
    url: `http://127.0.0.1:${appPort}/api/webhooks/keys`,
    connections,
    duration: seconds,
    requests: [{ method: "POST", setupRequest: (request) => ({ ...request, ...pick(stream.next()) }) }],
  });
  console.log(
    `req/s ${result.requests.average}  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx ${result.non2xx}`,
  );
} finally {
  const exited = new Promise((resolve) => next.once("exit", resolve));
  next.kill("SIGTERM");
  await exited;
  await server.stop();
}
if (profile) {
  const written = readdirSync("bench/results/profiles")
    .map((name) => `bench/results/profiles/${name}`)
    .filter((file) => statSync(file).mtimeMs >= startedAt)
    .sort((a, b) => statSync(b).size - statSync(a).size);
  // The largest is the server's main thread (tsx's loader thread writes a small one too).
  if (written[0]) console.log(`\n${summarizeProfile(written[0])}`);
}

function pick(event: { body: string; headers: Record<string, string> }) {
  return { body: event.body, headers: event.headers };
}
