// SIGTERM during signed load, with real processes: the standalone server stops taking new
// connections, lets the ingest transactions in flight commit and answers them, closes its pools
// and exits 0 within SHUTDOWN_DRAIN_MS. Every delivery answered 2xx is committed; redelivering
// everything that was not answered applies each event exactly once.
//
// To have transactions provably in flight at the signal (no timing guesses), the test holds the
// row lock of one tenant: its deliveries claim their event, then wait on that lock inside their
// transaction. We signal once PostgreSQL shows them waiting, and release the lock once the
// server has reported the drain.
import { connect } from "node:net";
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

const PORT = DEPLOY_PORT + 1;
const DRAIN_MS = 10_000;
// The held deliveries wait on a lock for a moment: well inside the ingest timeout.
const TX_TIMEOUT_MS = 8_000;
const POOL_SIZE = 16;
const HELD_TENANT = "district-held";
const HELD_DELIVERIES = 6;
const LOAD_WORKERS = 4;

type Attempt = { id: string; tenantId: string; keyId: string; sequence: number; status?: number; error?: string };

describe("SIGTERM during signed load", () => {
  let artifact: ReturnType<typeof copyArtifact>;
  let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
  let db: pg.Client;
  let app: RunningArtifact | undefined;

  beforeAll(async () => {
    artifact = copyArtifact();
    database = await createEmptyDatabase();
    db = new pg.Client({ connectionString: database.url });
  });

  afterAll(async () => {
    await app?.kill();
    await db?.end().catch(() => {});
    await database?.drop();
    artifact?.remove();
  });

  it("answers what it committed, commits what it answered, exits 0 in the bound; a redelivery applies the rest once", async () => {
    app = await startArtifact({
      dir: artifact.dir,
      databaseUrl: database.url,
      port: PORT,
      env: {
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
        INGEST_TX_TIMEOUT_MS: String(TX_TIMEOUT_MS),
        DATABASE_POOL_SIZE: String(POOL_SIZE),
      },
    });
    const server = app;
    await db.connect();
    // The held tenant exists before the lock is taken (its first event creates it).
    const first = await postSigned(server.baseUrl, {
      id: "evt_held_0",
      type: "key.created",
      tenantId: HELD_TENANT,
      keyId: "key_held_0",
      sequence: 1,
    });
    expect(first.status).toBe(200);
    // Open the pool's connections first: while one pooled transaction waits on a lock, a cold
    // pool was seen to open no further connection (with Next's own server.js too), and the
    // held deliveries below must each be inside their transaction at the signal.
    const warm = await Promise.all(
      Array.from({ length: POOL_SIZE }, (_, i) =>
        postSigned(server.baseUrl, {
          id: `evt_warm_${i}`,
          type: "key.created",
          tenantId: `district-warm-${i}`,
          keyId: `key_warm_${i}`,
          sequence: 1,
        }),
      ),
    );
    expect(warm.map((answer) => answer.status)).toEqual(Array(POOL_SIZE).fill(200));

    const attempts: Attempt[] = [];
    const send = async (attempt: Attempt) => {
      attempts.push(attempt);
      try {
        const answer = await postSigned(server.baseUrl, { ...attempt, type: "key.created" });
        attempt.status = answer.status;
      } catch (error) {
        attempt.error =
          error instanceof Error
            ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}`
            : String(error);
      }
    };

    // Steady load on other tenants until the server stops answering.
    let loadSent = 0;
    const load = Array.from({ length: LOAD_WORKERS }, (_, worker) =>
      (async () => {
        for (let n = 1; ; n++) {
          const attempt: Attempt = {
            id: `evt_load_${worker}_${n}`,
            tenantId: `district-load-${worker}`,
            keyId: `key_load_${worker}_${n}`,
            sequence: n,
          };
          loadSent++;
          await send(attempt);
          if (attempt.error) return;
        }
      })(),
    );
    await waitUntil(() => loadSent >= 40);

    // Hold the tenant's row lock; these deliveries will be mid-transaction at the signal.
    await db.query("BEGIN");
    await db.query("SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE", [HELD_TENANT]);
    const held = Array.from({ length: HELD_DELIVERIES }, (_, i) =>
      send({ id: `evt_held_${i + 1}`, tenantId: HELD_TENANT, keyId: `key_held_${i + 1}`, sequence: i + 2 }),
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

    const signalledAt = performance.now();
    server.child.kill("SIGTERM");
    const drainLine = await server.waitForLine(/SIGTERM: draining \d+ request\(s\) in flight/);
    expect(Number(/draining (\d+)/.exec(drainLine)![1])).toBeGreaterThanOrEqual(HELD_DELIVERIES);

    // New connections are refused while the transactions in flight are still running (they
    // cannot finish before the COMMIT below). The listening socket closes at the end of the
    // server's current loop turn, so a connection attempt racing the log line may still land.
    const connectResult = () =>
      new Promise<string>((resolve) => {
        const socket = connect(PORT, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve("connected");
        });
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
    await waitUntil(async () => (await connectResult()) === "ECONNREFUSED");
    expect(await waiting()).toBe(HELD_DELIVERIES);

    await db.query("COMMIT"); // the held transactions may now commit
    const exit = await server.exited;
    const drainedInMs = performance.now() - signalledAt;
    await Promise.all([...held, ...load]);

    expect(exit).toEqual({ code: 0, signal: null });
    expect(drainedInMs).toBeLessThan(DRAIN_MS);
    expect(server.output).toContain("keyhook: stopped cleanly");
    // Every held delivery was in flight at SIGTERM, and was committed and answered.
    const heldAttempts = attempts.filter((a) => a.tenantId === HELD_TENANT);
    expect(heldAttempts.map((a) => a.status)).toEqual(Array(HELD_DELIVERIES).fill(200));

    // Answered 2xx ⇒ committed.
    const answered = attempts.filter((a) => a.status !== undefined && a.status >= 200 && a.status < 300);
    const ledger = await db.query<{ event_id: string; n: string }>(
      "SELECT event_id, count(*) AS n FROM processed_events GROUP BY event_id",
    );
    const committed = new Map(ledger.rows.map((row) => [row.event_id, Number(row.n)]));
    expect(answered.filter((a) => committed.get(a.id) !== 1).map((a) => a.id)).toEqual([]);
    // The pool was closed: no connection of the app is left on the database.
    const left = await db.query(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    expect(Number(left.rows[0].n)).toBe(0);

    // The provider redelivers whatever it has no 2xx for: each event then exists exactly once.
    const unanswered = attempts.filter((a) => !answered.includes(a));
    expect(unanswered.length).toBeGreaterThan(0); // at least the loaders' refused attempts
    app = await startArtifact({ dir: artifact.dir, databaseUrl: database.url, port: PORT });
    for (const attempt of unanswered) {
      const answer = await postSigned(app.baseUrl, { ...attempt, type: "key.created" });
      expect(answer.status).toBe(200);
      expect(["applied", "duplicate", "stale"]).toContain(answer.body.outcome);
    }
    const after = await db.query<{ event_id: string; n: string }>(
      "SELECT event_id, count(*) AS n FROM processed_events GROUP BY event_id",
    );
    const once = new Map(after.rows.map((row) => [row.event_id, Number(row.n)]));
    expect(attempts.filter((a) => once.get(a.id) !== 1).map((a) => a.id)).toEqual([]);
    const active = await db.query(
      "SELECT tenant_id FROM api_keys WHERE status = 'active' GROUP BY tenant_id HAVING count(*) > 1",
    );
    expect(active.rows).toEqual([]);

    console.log(
      `graceful shutdown: ${attempts.length} deliveries, ${answered.length} answered 2xx before exit, ` +
        `${HELD_DELIVERIES} in flight at SIGTERM (all committed and answered), ${unanswered.length} unanswered then redelivered once; ` +
        `exit 0 after ${Math.round(drainedInMs)} ms (bound ${DRAIN_MS} ms)`,
    );
  });
});
