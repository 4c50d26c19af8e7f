// `npm run recover`'s service against real processes: the provider simulator, the ingest served
// over HTTP (the Next route's handler) and the worker, which registers our hook and keeps running
// throughout. The "backup" is a copy of this file's database taken between two loads (CREATE
// DATABASE … TEMPLATE, a consistent copy at that instant); the "restore" swaps it back in, losing
// the second load, revokes among it, exactly as a point-in-time restore loses what came after its
// target. (`npm run test:restore` does the same with pgBackRest and the production build.)
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { AppError } from "@/lib/core/errors";
import { createProviderClient } from "@/lib/operations/provider/client";
import { getRegisteredHookId } from "@/lib/operations/provider/webhook-registration";
import { recoverFromProvider, type RecoverOptions } from "@/lib/operations/recovery/recover-from-provider";
import { startIngestServer, waitUntil, type RunningServer } from "../../support/child-process";
import { withPgClient } from "../../support/pg-client";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";
import { startWorker, type WorkerProcess } from "../../support/worker";

const TENANTS = 8;
const PHASE_A = 40;
const PHASE_B = 40;

type Truth = { tenants: { id: string; keys: { id: string; status: string }[] }[] };

let sim: SimulatorProcess;
let ingest: RunningServer;
let worker: WorkerProcess;
let ingestPort = 0;
let phaseA: string[] = [];
let phaseB: string[] = [];
/** The restore point: after the first load committed, before the second began. */
let restorePoint: Date;
const databaseUrl = process.env.DATABASE_URL!;
const databaseName = new URL(databaseUrl).pathname.slice(1);
const adminUrl = (() => {
  const url = new URL(databaseUrl);
  url.pathname = "/postgres";
  return url.toString();
})();
const operator = { id: null, label: "test operator" };

const client = () => createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, baseDelayMs: 20 });
const recover = (options: Partial<RecoverOptions> = {}) =>
  recoverFromProvider({ actor: operator, since: restorePoint, dryRun: false, provider: client(), ...options });

async function startApp(): Promise<void> {
  // A short ingest timeout: a district held locked is answered 503 within a second.
  ingest = await startIngestServer({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "warn",
    INGEST_SERVER_PORT: String(ingestPort),
    INGEST_TX_TIMEOUT_MS: "1000",
  });
  ingestPort = ingest.port;
  worker = startWorker({
    DATABASE_URL: databaseUrl,
    PROVIDER_URL: sim.url,
    PROVIDER_WEBHOOK_URL: `http://127.0.0.1:${ingestPort}/api/webhooks/keys`,
    LOG_LEVEL: "warn",
  });
}

async function stopApp(): Promise<void> {
  await Promise.all([ingest.kill("SIGTERM"), worker.kill("SIGTERM")]);
  await disconnectDb();
}

async function emitAndDrain(count: number): Promise<string[]> {
  const before = (await sim.stats()).messages.succeeded;
  const { event_ids } = await sim.control<{ event_ids: string[] }>("POST", "/_sim/emit", {
    count,
    tenantCount: TENANTS,
    tenantPrefix: "district-recover-",
  });
  await waitUntil(async () => {
    const stats = await sim.stats();
    return stats.messages.succeeded === before + count && stats.queued === 0 && stats.inFlight === 0;
  }, 50);
  return event_ids;
}

/** The "backup": a copy of the database as it is now (the app stopped for the instant it takes). */
async function backUp(copies: string[]): Promise<void> {
  await stopApp();
  await withPgClient(adminUrl, async (admin) => {
    for (const copy of copies) await admin.query(`CREATE DATABASE ${copy} TEMPLATE ${databaseName}`);
  });
  await startApp();
}

/** The disaster and the restore: the database replaced by the copy, the app started on it. */
async function restore(copy: string): Promise<void> {
  await stopApp();
  await withPgClient(adminUrl, async (admin) => {
    await admin.query(`DROP DATABASE ${databaseName} WITH (FORCE)`);
    await admin.query(`ALTER DATABASE ${copy} RENAME TO ${databaseName}`);
  });
  await startApp();
}

async function truth(): Promise<Map<string, string>> {
  const { tenants } = await sim.control<Truth>("GET", "/_sim/truth");
  return new Map(tenants.flatMap((t) => t.keys.map((k) => [k.id, k.status] as const)));
}

async function ours(): Promise<Map<string, string>> {
  const keys = await prisma.apiKey.findMany({ where: { tenantId: { startsWith: "district-recover-" } } });
  return new Map(keys.map((k) => [k.id, k.status]));
}

/** Keys the provider revoked that are live here (active or superseded). */
async function revokedButLive(): Promise<string[]> {
  const [theirs, mine] = await Promise.all([truth(), ours()]);
  return [...theirs]
    .filter(([id, status]) => status === "revoked" && ["active", "superseded"].includes(mine.get(id) ?? ""))
    .map(([id]) => id);
}

async function claimed(ids: string[]): Promise<number> {
  return prisma.processedEvent.count({ where: { eventId: { in: ids } } });
}

async function redeliveryCalls(): Promise<number> {
  const { calls } = await sim.control<{ calls: { path: string }[] }>("GET", "/_sim/api-calls");
  return calls.filter((c) => c.path.endsWith("/redeliver")).length;
}

const copies = (suffix: string) => `${databaseName}_${suffix}`.slice(0, 63);

beforeAll(async () => {
  sim = await startSimulator({ env: { PROVIDER_SIM_TIME_SCALE: "1000", PROVIDER_SIM_SEED: "3301" } });
  await startApp();
  await waitUntil(async () => (await getRegisteredHookId(prisma)) !== null, 50);
  phaseA = await emitAndDrain(PHASE_A);
  await backUp([copies("first"), copies("second"), copies("third")]);
  restorePoint = await withPgClient(
    databaseUrl,
    async (c) => (await c.query<{ now: Date }>("SELECT now()")).rows[0]!.now,
  );
  phaseB = await emitAndDrain(PHASE_B);
  expect(await claimed(phaseB)).toBe(PHASE_B);
  await restore(copies("first"));
}, 120_000);

afterAll(async () => {
  await Promise.all([ingest?.kill(), worker?.kill(), sim?.dispose()]);
  await withPgClient(adminUrl, async (admin) => {
    for (const copy of [copies("second"), copies("third")])
      await admin.query(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
  });
});

describe("npm run recover, after a restore", () => {
  it("the restore lost the second load, acknowledged revokes among it (the control)", async () => {
    expect(await claimed(phaseA)).toBe(PHASE_A);
    expect(await claimed(phaseB)).toBe(0);
    expect((await revokedButLive()).length).toBeGreaterThan(0);
  });

  it("refuses a --since older than the provider's history, in plain words, and changes nothing", async () => {
    const calls = await redeliveryCalls();
    const since = new Date(Date.now() - 31 * 86_400_000);
    const refused = await recover({ since, historyDays: 30 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("bad_request");
    expect((refused as AppError).publicMessage).toMatch(
      /^the provider keeps 30 days of delivery history \(PROVIDER_HISTORY_DAYS\), so it can no longer list what it delivered between .* \(--since minus the 10-minute margin\) and .*: restore a newer backup/,
    );
    expect(await redeliveryCalls()).toBe(calls);
    expect(await claimed(phaseB)).toBe(0);
    expect(
      await prisma.auditLog.findFirst({
        where: { action: "recovery.run", outcome: "refused" },
        orderBy: { id: "desc" },
      }),
    ).toMatchObject({ actor: "test operator", target: `since ${since.toISOString()}` });
  });

  it("with the provider down: a plain error, nothing redelivered, nothing changed; it works once the provider is back", async () => {
    const port = sim.port;
    await sim.kill();
    try {
      const failed = await recover().catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(AppError);
      expect((failed as AppError).publicMessage).toMatch(
        /^asking the provider failed while listing its delivery history \(could not reach the provider at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\)\. Nothing was redelivered and nothing changed here/,
      );
      expect(await claimed(phaseB)).toBe(0);
      expect(
        await prisma.auditLog.findFirst({ where: { action: "recovery.run" }, orderBy: { id: "desc" } }),
      ).toMatchObject({ outcome: "failed" });
    } finally {
      sim = await startSimulator({
        dataDir: sim.dataDir,
        env: { PROVIDER_SIM_PORT: String(port), PROVIDER_SIM_TIME_SCALE: "1000" },
      });
    }
  });

  it("a dry run names what is missing and redelivers nothing", async () => {
    const calls = await redeliveryCalls();
    const result = await recover({ dryRun: true });
    expect(result).toMatchObject({ dryRun: true, events: PHASE_A + PHASE_B, missing: PHASE_B, appliedAgain: 0 });
    expect(await redeliveryCalls()).toBe(calls);
    expect(await claimed(phaseB)).toBe(0);
  });

  it("catches up while the worker runs: what the restore lost is applied again, the rest absorbed, the drift check is clean", async () => {
    expect(worker.child.exitCode).toBeNull();
    const result = await recover();
    expect(result).toMatchObject({
      dryRun: false,
      events: PHASE_A + PHASE_B,
      acknowledged: PHASE_A + PHASE_B,
      missing: PHASE_B,
      appliedAgain: PHASE_B,
      absorbed: PHASE_A,
      notLanded: { count: 0 },
      drift: { status: "done", differences: 0 },
    });
    expect(await claimed(phaseB)).toBe(PHASE_B);
    expect(await revokedButLive()).toEqual([]);
    expect(await ours()).toEqual(await truth());
    const activePerTenant = await prisma.apiKey.groupBy({
      by: ["tenantId"],
      where: { status: "active" },
      _count: true,
    });
    expect(activePerTenant.filter((t) => t._count > 1)).toEqual([]);
    // Each lost event was claimed once, each kept one answered "duplicate".
    const duplicates = await prisma.receipt.count({ where: { eventId: { in: phaseA }, outcome: "duplicate" } });
    expect(duplicates).toBeGreaterThanOrEqual(PHASE_A);
    expect(worker.child.exitCode).toBeNull();
    expect(
      await prisma.auditLog.findFirst({ where: { action: "recovery.run" }, orderBy: { id: "desc" } }),
    ).toMatchObject({ outcome: "ok", details: expect.objectContaining({ applied_again: PHASE_B, absorbed: PHASE_A }) });
  }, 120_000);

  it("run twice, the second run changes nothing: every event is absorbed", async () => {
    const snapshot = async () => ({
      keys: await ours(),
      ledger: await prisma.processedEvent.findMany({
        orderBy: { id: "asc" },
        select: { id: true, eventId: true, outcome: true },
      }),
      tenants: await prisma.tenant.findMany({ orderBy: { id: "asc" }, select: { id: true, highWaterMark: true } }),
    });
    const before = await snapshot();
    const result = await recover();
    expect(result).toMatchObject({
      missing: 0,
      appliedAgain: 0,
      absorbed: PHASE_A + PHASE_B,
      notLanded: { count: 0 },
      drift: { differences: 0 },
    });
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it("a provider that dies mid-run: a plain error, nothing lost; the next run, with it back, completes", async () => {
    await restore(copies("second"));
    expect(await claimed(phaseB)).toBe(0);
    const port = sim.port;
    let killed = false;
    const failed = await recover({
      onProgress: (progress) => {
        if (progress.phase === "redelivering" && progress.done >= 10 && !killed) {
          killed = true;
          sim.child.kill("SIGKILL");
        }
      },
    }).catch((error: unknown) => error);
    expect(killed).toBe(true);
    expect(failed).toBeInstanceOf(AppError);
    expect((failed as AppError).publicMessage).toMatch(
      /^asking the provider failed while redelivering \(\d+ of 80 asked for\) \(could not reach the provider .*\)\. What was asked for is applied or absorbed as it arrives, and nothing was lost: run the same command again/,
    );
    sim = await startSimulator({
      dataDir: sim.dataDir,
      env: { PROVIDER_SIM_PORT: String(port), PROVIDER_SIM_TIME_SCALE: "1000" },
    });
    const result = await recover();
    expect(result).toMatchObject({ events: PHASE_A + PHASE_B, notLanded: { count: 0 }, drift: { differences: 0 } });
    expect(await claimed(phaseB)).toBe(PHASE_B);
    expect(await ours()).toEqual(await truth());
  }, 120_000);

  it("asks again for redeliveries our app answered 503 (busy), which the provider does not retry", async () => {
    await restore(copies("third"));
    // Every district locked, as a long transaction would: the first redeliveries wait, time out, 503.
    const holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("SELECT id FROM tenants FOR UPDATE");
    const released = (async () => {
      await waitUntil(async () => (await prisma.receipt.count({ where: { status: 503 } })) > 0, 50);
      await holder.query("COMMIT");
      await holder.end();
    })();
    const result = await recover({ resendAfterMs: 2_000 });
    await released;
    expect(await prisma.receipt.count({ where: { status: 503 } })).toBeGreaterThan(0);
    expect(result).toMatchObject({
      missing: PHASE_B,
      appliedAgain: PHASE_B,
      notLanded: { count: 0 },
      drift: { differences: 0 },
    });
    expect(result.rounds).toBeGreaterThan(1);
    expect(await ours()).toEqual(await truth());
  }, 120_000);
});
