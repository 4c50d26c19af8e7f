import { spawn } from "node:child_process";
import autocannon from "autocannon";
import pg from "pg";
import { startEmbeddedPostgres } from "../lib/dev/embedded-postgres";
import { applyMigrations } from "../lib/migrations/wasm-engine";
import { createEventStream } from "./support/event-stream";
const SECRET = "whsec_" + Buffer.from("keyhook-benchmark-secret-0123456789").toString("base64");
const server = await startEmbeddedPostgres({ dataDir: ".data/bench-postgres", port: 54349, database: "postgres" });
const a = new pg.Client({ connectionString: server.adminUrl("postgres") }); await a.connect();
await a.query("DROP DATABASE IF EXISTS keyhook_prof WITH (FORCE)"); await a.query("CREATE DATABASE keyhook_prof"); await a.end();
const url = server.adminUrl("keyhook_prof"); await applyMigrations({ databaseUrl: url });
const next = spawn(process.execPath, ["--cpu-prof", "--cpu-prof-dir=/tmp/prof", "node_modules/next/dist/bin/next", "start", "-p", "4601"], { stdio: "inherit", env: { ...process.env, DATABASE_URL: url, WEBHOOK_SECRETS: SECRET, NODE_ENV: "production" } });
for (;;) { if (await fetch("http://127.0.0.1:4601/api/health").then(r => r.ok, () => false)) break; await new Promise(r => setTimeout(r, 200)); }
const stream = createEventStream({ secret: SECRET, tenants: 1000, runId: "p" + Date.now() });
const r = await autocannon({ url: "http://127.0.0.1:4601/api/webhooks/keys", connections: 8, duration: 8, requests: [{ method: "POST", setupRequest: (q) => { const n = stream.next(); return { ...q, body: n.body, headers: n.headers }; } }] });
console.log("req/s", r.requests.average, "p99", r.latency.p99);
const exited = new Promise(res => next.once("exit", res)); next.kill("SIGTERM"); await exited; await server.stop();
