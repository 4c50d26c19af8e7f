// WEB_CONCURRENCY=2 with the deployable artifact: two server processes share the port and both
// answer deliveries (told apart by the pid of their log lines), a killed one is replaced, and a
// SIGTERM to the primary drains both: the deliveries in flight at the signal commit and are
// answered, every pool is closed and the primary exits 0.
//
// As in graceful-shutdown.test.ts, deliveries are held in flight by a row lock the test owns.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "../support/child-process";
import {
  copyArtifact,
  createEmptyDatabase,
  DEPLOY_PORT,
  postSigned,
  startArtifact,
  type RunningArtifact,
} from "./standalone-app";

const PORT = DEPLOY_PORT + 3;
const HELD_TENANT = "district-cluster-held";
const HELD_DELIVERIES = 4;

describe("WEB_CONCURRENCY=2", () => {
  let artifact: ReturnType<typeof copyArtifact>;
  let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
  let db: pg.Client;
  let app: RunningArtifact;
  let sent = 0;

  /** pids of the server processes, from their "serving on … [pid N]" lines, in order of start. */
  const servingPids = () =>
    app.output.flatMap((line) => {
      const match = /^keyhook: serving on \S+ \[pid (\d+)\]$/.exec(line);
      return match ? [Number(match[1])] : [];
    });
  /** pids that logged an ingest (LOG_LEVEL=info: one JSON line per delivery). */
  const ingestPids = () =>
    new Set(
      app.output.flatMap((line) => {
        if (!line.startsWith("{")) return [];
        try {
          const entry = JSON.parse(line) as { msg?: string; pid?: number };
          return entry.msg === "ingest" && entry.pid ? [entry.pid] : [];
        } catch {
          return [];
        }
      }),
    );
  /** waitUntil with a bound: a step that never happens fails with what the server printed. */
  const waitFor = async (check: () => Promise<boolean> | boolean, what: string, ms = 30_000) => {
    const deadline = Date.now() + ms;
    await waitUntil(async () => {
      if (Date.now() > deadline)
        throw new Error(`${what}: not within ${ms} ms; server output:\n${app.output.slice(-30).join("\n")}`);
      return check();
    });
  };
  const deliverBatch = (size: number) =>
    Promise.all(
      Array.from({ length: size }, () => {
        sent++;
        // New connections: the primary hands out connections round-robin, so a batch reaches
        // every process, the replacement too (standalone-app.ts, postOnNewConnection).
        return postSigned(
          app.baseUrl,
          {
            id: `evt_cluster_${sent}`,
            type: "key.created",
            tenantId: `district-cluster-${sent}`,
            keyId: `key_cluster_${sent}`,
            sequence: 1,
          },
          { newConnection: true },
        );
      }),
    );

  beforeAll(async () => {
    artifact = copyArtifact();
    database = await createEmptyDatabase();
    db = new pg.Client({ connectionString: database.url });
    app = await startArtifact({
      dir: artifact.dir,
      databaseUrl: database.url,
      port: PORT,
      env: { WEB_CONCURRENCY: "2", LOG_LEVEL: "info", DATABASE_POOL_SIZE: "4" },
    });
    await waitUntil(() => servingPids().length === 2);
    await db.connect();
  });

  afterAll(async () => {
    await app?.kill();
    await db?.end().catch(() => {});
    await database?.drop();
    artifact?.remove();
  });

  it("runs two server processes that both answer on the one port", async () => {
    expect(app.output).toContain("keyhook: WEB_CONCURRENCY=2: starting 2 server processes");
    const workers = servingPids();
    expect(new Set(workers).size).toBe(2);
    expect(workers).not.toContain(app.child.pid);
    // Connections are handed out round-robin: concurrent deliveries reach both processes.
    await waitFor(async () => {
      const answers = await deliverBatch(8);
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      return ingestPids().size === 2;
    }, "deliveries answered by both processes");
    expect([...ingestPids()].sort()).toEqual([...workers].sort());
  });

  it("replaces a server process that dies", async () => {
    const [victim, survivor] = servingPids();
    process.kill(victim!, "SIGKILL");
    const replaced = new RegExp(`server process ${victim} exited \\(SIGKILL\\); starting a replacement`);
    await waitFor(() => app.output.some((line) => replaced.test(line)), "the primary noticing the kill");
    await waitFor(() => servingPids().length === 3, "a replacement serving");
    const replacement = servingPids()[2]!;
    expect([victim, survivor]).not.toContain(replacement);
    await waitFor(async () => {
      const answers = await deliverBatch(8);
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      return ingestPids().has(replacement);
    }, "a delivery answered by the replacement");
  });

  it("drains every server process on SIGTERM: what was in flight commits and is answered, then exit 0", async () => {
    const first = await postSigned(app.baseUrl, {
      id: "evt_cluster_held_0",
      type: "key.created",
      tenantId: HELD_TENANT,
      keyId: "key_cluster_held_0",
      sequence: 1,
    });
    expect(first.status).toBe(200);
    await db.query("BEGIN");
    await db.query("SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE", [HELD_TENANT]);
    const held = Array.from({ length: HELD_DELIVERIES }, (_, i) =>
      postSigned(app.baseUrl, {
        id: `evt_cluster_held_${i + 1}`,
        type: "key.created",
        tenantId: HELD_TENANT,
        keyId: `key_cluster_held_${i + 1}`,
        sequence: i + 2,
      }),
    );
    const waiting = async () =>
      Number(
        (
          await db.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
          )
        ).rows[0].n,
      );
    await waitUntil(async () => (await waiting()) === HELD_DELIVERIES);

    const workers = servingPids().slice(1); // the survivor and the replacement
    app.child.kill("SIGTERM"); // the primary only: it passes the signal on
    await app.waitForLine(/^keyhook: SIGTERM: stopping 2 server process\(es\)$/);
    const draining = await Promise.all(
      workers.map((pid) =>
        app.waitForLine(new RegExp(`SIGTERM: draining (\\d+) request\\(s\\) in flight .*\\[pid ${pid}\\]`)),
      ),
    );
    const inFlight = draining.map((line) => Number(/draining (\d+)/.exec(line)![1]));
    expect(inFlight.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(HELD_DELIVERIES);

    await db.query("COMMIT");
    const answers = await Promise.all(held);
    expect(answers.map((a) => a.status)).toEqual(Array(HELD_DELIVERIES).fill(200));
    expect(await app.exited).toEqual({ code: 0, signal: null });
    for (const pid of workers) expect(app.output).toContain(`keyhook: stopped cleanly [pid ${pid}]`);
    expect(app.output).toContain("keyhook: stopped cleanly");
    const committed = await db.query("SELECT count(*) AS n FROM processed_events WHERE tenant_id = $1", [HELD_TENANT]);
    expect(Number(committed.rows[0].n)).toBe(HELD_DELIVERIES + 1);
    const left = await db.query(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    expect(Number(left.rows[0].n)).toBe(0);
  });
});
