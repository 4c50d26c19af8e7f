// Every table that grows with traffic or time is purged past its window by the nightly purge,
// and what a human still needs is never purged (docs/retention.md).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { appendAuditAt } from "../../support/audit";
import { prisma } from "@/lib/core/db/client";
import { HISTORY_PURGES } from "@/lib/operations/retention/history-purges";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";
import { DAY_MS } from "../../support/ledger-rows";

// With the default windows: outbox 30 days, alerts, gaps and run histories 90, audit and keys 400.
const now = new Date("2026-12-01T03:00:00.000Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);
const purge = () => runPurge({ trigger: "manual", now, pauseMs: 0 });

beforeEach(resetDatabase);

async function outboxRow(key: string, status: string, sentAt: Date | null, attempts = 2) {
  const row = await prisma.outboxMessage.create({
    data: {
      kind: "notify.webhook",
      payload: {},
      idempotencyKey: key,
      status,
      sentAt,
      attempts,
      createdAt: daysAgo(200),
    },
  });
  await prisma.outboxAttempt.createMany({
    data: Array.from({ length: attempts }, () => ({ outboxId: row.id, at: sentAt ?? daysAgo(200), status: 200 })),
  });
  return row.id;
}

/** A resolved alert's condition went when it was resolved, unless `decisionHolds` (a person's, still true). */
async function alert(subject: string, state: string, resolvedAt: Date | null, decisionHolds = false) {
  const row = await prisma.alert.create({
    data: {
      kind: "quarantine",
      subject,
      state,
      resolvedAt,
      resolution: state !== "resolved" ? null : decisionHolds ? "explained" : "condition_cleared",
      conditionClearedAt: decisionHolds ? null : resolvedAt,
      firstSeenAt: daysAgo(300),
      lastSeenAt: daysAgo(300),
    },
  });
  await prisma.alertNotification.create({
    data: { alertId: row.id, channelId: "ch_1", lastSentAt: daysAgo(300), lastSeenAt: daysAgo(300) },
  });
  return row.id;
}

describe("the nightly purge beyond claims and receipts", () => {
  it("deletes sent outbox rows past their window with their attempts, never a pending or failed one", async () => {
    const old = await outboxRow("sent-old", "sent", daysAgo(31));
    const recent = await outboxRow("sent-recent", "sent", daysAgo(29));
    const failed = await outboxRow("failed-old", "failed", null, 12);
    const pending = await outboxRow("pending-old", "pending", null, 3);

    const run = await purge();

    const left = await prisma.outboxMessage.findMany({ orderBy: { id: "asc" }, select: { id: true } });
    expect(left.map((r) => r.id)).toEqual([recent, failed, pending]);
    expect(await prisma.outboxAttempt.count({ where: { outboxId: old } })).toBe(0);
    expect(await prisma.outboxAttempt.count()).toBe(2 + 12 + 3);
    expect(run.rowsDeleted).toMatchObject({ outbox: 1, outbox_attempts: 2 });
  });

  it("deletes resolved alerts past their window with their notification state, never an open or acknowledged one, nor a decision whose condition holds", async () => {
    const old = await alert("resolved-old", "resolved", daysAgo(91));
    const recent = await alert("resolved-recent", "resolved", daysAgo(89));
    const open = await alert("open-old", "open", null);
    const acknowledged = await alert("ack-old", "acknowledged", null);
    const decided = await alert("explained-old", "resolved", daysAgo(500), true);

    const run = await purge();

    const left = await prisma.alert.findMany({ orderBy: { id: "asc" }, select: { id: true } });
    expect(left.map((r) => r.id)).toEqual([recent, open, acknowledged, decided]);
    expect(await prisma.alertNotification.count({ where: { alertId: old } })).toBe(0);
    expect(await prisma.alertNotification.count()).toBe(4);
    expect(run.rowsDeleted).toMatchObject({ alerts: 1, alert_notifications: 1 });
  });

  it("deletes closed gaps past their window, never an open one however old", async () => {
    const gap = (fromSeq: number, closedAt: Date | null) =>
      prisma.sequenceGap.create({
        data: { tenantId: "district-g", fromSeq, toSeq: fromSeq, firstNoticedAt: daysAgo(500), closedAt },
      });
    await gap(1, daysAgo(91));
    const recent = await gap(2, daysAgo(89));
    const open = await gap(3, null);

    const run = await purge();

    const left = await prisma.sequenceGap.findMany({ orderBy: { id: "asc" }, select: { id: true } });
    expect(left.map((r) => r.id)).toEqual([recent.id, open.id]);
    expect(run.rowsDeleted).toMatchObject({ sequence_gaps: 1 });
  });

  it("keeps 90 days of run histories, and always the last run the pages and the schedule read", async () => {
    // Purge runs: two old successful ones, an old failure; the newest successful one is old too.
    for (const status of ["ran", "failed", "ran"]) {
      await prisma.purgeRun.create({ data: { trigger: "schedule", status, startedAt: daysAgo(200) } });
    }
    // Readiness: an old finished run, the newest finished one (old), an old unfinished one after it.
    const readiness = async (startedAt: Date, finished: boolean) =>
      prisma.readinessRun.create({
        data: { actor: "t", trigger: "button", startedAt, finishedAt: finished ? startedAt : null },
      });
    await readiness(daysAgo(300), true);
    const lastFinished = await readiness(daysAgo(200), true);
    const unfinished = await readiness(daysAgo(150), false);
    // Drift: two old finished runs and an old interrupted one (it resumes; never purged).
    const drift = (status: string, requestedAt: Date) =>
      prisma.driftRun.create({ data: { requestedBy: "schedule", trigger: "schedule", status, requestedAt } });
    await drift("done", daysAgo(300));
    const lastDrift = await drift("done", daysAgo(200));
    const interrupted = await drift("interrupted", daysAgo(250));

    const run = await purge();

    const purgeRuns = await prisma.purgeRun.findMany({ orderBy: { id: "asc" } });
    // The newest successful old run and this run: every older finished one went.
    expect(purgeRuns.map((r) => [Number(r.id), r.status])).toEqual([
      [3, "ran"],
      [4, "ran"],
    ]);
    expect((await prisma.readinessRun.findMany({ orderBy: { id: "asc" } })).map((r) => r.id)).toEqual([
      lastFinished.id,
      unfinished.id,
    ]);
    expect((await prisma.driftRun.findMany({ orderBy: { id: "asc" } })).map((r) => r.id)).toEqual([
      lastDrift.id,
      interrupted.id,
    ]);
    expect(run.rowsDeleted).toMatchObject({ purge_runs: 2, readiness_runs: 1, drift_runs: 1 });
    expect((await prisma.purgeRun.findUniqueOrThrow({ where: { id: BigInt(run.id) } })).rowsDeleted).toEqual(
      run.rowsDeleted,
    );
  });

  it("removes the queue's jobs that failed for good past the window, never one still being retried", async () => {
    await prisma.$executeRaw`SELECT graphile_worker.add_job('drift.check', max_attempts => 1)`;
    await prisma.$executeRaw`SELECT graphile_worker.add_job('alerts.sweep')`;
    await prisma.$executeRaw`
      SELECT graphile_worker.permanently_fail_jobs(ARRAY(SELECT id FROM graphile_worker.jobs WHERE task_identifier = 'drift.check'), 'boom')`;

    // The job failed for good "now"; 91 days later it is past the run-history window.
    const later = await runPurge({ trigger: "manual", now: new Date(Date.now() + 91 * DAY_MS), pauseMs: 0 });

    const jobs = await prisma.$queryRaw<
      { task_identifier: string }[]
    >`SELECT task_identifier FROM graphile_worker.jobs`;
    expect(jobs.map((j) => j.task_identifier)).toEqual(["alerts.sweep"]);
    expect(later.rowsDeleted).toMatchObject({ "graphile_worker.jobs": 1 });
  });
});

describe("the audit log's retention", () => {
  // Only a prefix of the hash chain goes: an old entry after a recent one waits for it.
  it("stops at the first entry inside the window, whatever older ones follow it", async () => {
    const old = await entry(daysAgo(402));
    const recent = await entry(daysAgo(10));
    const olderButLater = await entry(daysAgo(450));
    await purge();
    const left = await prisma.auditLog.findMany({ orderBy: { seq: "asc" }, select: { id: true, action: true } });
    expect(left.map((r) => r.id)).toEqual([recent.id, olderButLater.id, expect.any(BigInt)]);
    expect(left.map((r) => r.id)).not.toContain(old.id);
  });

  const entry = (at: Date, action = "key.revoke") => appendAuditAt(at, { action });

  it("deletes entries past the window through the trigger's one path, and audits the deletion", async () => {
    const old = [await entry(daysAgo(402)), await entry(daysAgo(401))];
    const kept = await entry(daysAgo(399));

    const run = await purge();

    const left = await prisma.auditLog.findMany({ orderBy: { id: "asc" } });
    expect(left.map((r) => r.id)).toEqual([kept.id, expect.any(BigInt)]);
    expect(left[1]).toMatchObject({
      at: now,
      actor: "retention purge (manual)",
      action: "audit.purge",
      target: "audit_log",
      outcome: "ok",
      details: {
        deleted: 2,
        from_id: String(old[0]!.id),
        to_id: String(old[1]!.id),
        from_seq: String(old[0]!.seq),
        to_seq: String(old[1]!.seq),
        window_days: 400,
        before: daysAgo(400).toISOString(),
      },
    });
    expect(run.rowsDeleted).toMatchObject({ audit_log: 2 });
  });

  it("is append-only everywhere else: no update, no delete, not even of an old entry", async () => {
    const old = await entry(daysAgo(500));
    await expect(prisma.auditLog.delete({ where: { id: old.id } })).rejects.toThrow(/append-only \(DELETE refused\)/);
    await expect(prisma.auditLog.update({ where: { id: old.id }, data: { outcome: "x" } })).rejects.toThrow(
      /append-only \(UPDATE refused\)/,
    );
    // The purge's path deletes only what is older than the instant it names.
    const recent = await entry(daysAgo(10));
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT set_config('keyhook.audit_purge_before', ${daysAgo(20).toISOString()}, true)`;
        await tx.$executeRaw`DELETE FROM audit_log WHERE id = ${recent.id}`;
      }),
    ).rejects.toThrow(/append-only \(DELETE refused\)/);
    expect(await prisma.auditLog.count()).toBe(2);
  });

  it("the path is taken by the purge alone: no other code sets keyhook.audit_purge_before", () => {
    const root = path.resolve(import.meta.dirname, "../../..");
    const users: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (["node_modules", ".next", ".data", ".git", "generated", "migrations"].includes(name)) continue;
        const file = path.join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (/\.(ts|tsx|mjs|sql)$/.test(name) && readFileSync(file, "utf8").includes("keyhook.audit_purge_before"))
          users.push(path.relative(root, file));
      }
    };
    for (const dir of ["app", "lib", "http", "scripts", "server", "prisma", "tooling", "components"])
      walk(path.join(root, dir));
    expect(users.sort()).toEqual([
      "lib/operations/retention/audit-purge.ts",
      "prisma/sql/keyhook_audit_log_is_append_only.sql",
    ]);
  });
});

describe("the audit checkpoints' retention", () => {
  const checkpoint = (at: Date) =>
    prisma.auditCheckpoint.create({
      data: {
        at,
        reason: "hourly",
        seq: 0n,
        firstSeq: 1n,
        head: "0".repeat(64),
        keyId: "k",
        body: "{}",
        signature: "",
      },
    });

  it("deletes checkpoints signed before the window and keeps the newest, whatever its age", async () => {
    const old = [await checkpoint(daysAgo(450)), await checkpoint(daysAgo(401))];
    const newestButOld = await checkpoint(daysAgo(420));
    const run = await purge();
    const left = await prisma.auditCheckpoint.findMany({ orderBy: { id: "asc" }, select: { id: true } });
    expect(left.map((c) => c.id)).toEqual([newestButOld.id]);
    expect(old.map((c) => c.id)).not.toContain(newestButOld.id);
    expect(run.rowsDeleted).toMatchObject({ audit_checkpoints: 2 });
  });
});

describe("a district's key history", () => {
  it("deletes revoked and rotated keys past the window, keeps live keys and the tombstones that guard a late activation", async () => {
    const tenantId = "district-k";
    await prisma.tenant.create({ data: { id: tenantId, highWaterMark: 10n } });
    const key = (id: string, status: string, data: Record<string, unknown>) =>
      prisma.apiKey.create({ data: { id, tenantId, status, ...data } });
    await key("key_revoked_old", "revoked", { activatedSeq: 3n, revokedAt: daysAgo(401) });
    await key("key_rotated_old", "rotated", { activatedSeq: 4n, rotatedAt: daysAgo(450) });
    await key("key_revoked_recent", "revoked", { activatedSeq: 5n, revokedAt: daysAgo(399) });
    // Revoked before we ever saw it activated: only this row stops its activation from applying.
    await key("key_tombstone_old", "revoked", { activatedSeq: null, revokedAt: daysAgo(500) });
    await key("key_active", "active", { activatedSeq: 10n, activatedAt: daysAgo(600) });
    await key("key_superseded", "superseded", {
      activatedSeq: 9n,
      activatedAt: daysAgo(600),
      supersededAt: daysAgo(590),
    });

    const run = await purge();

    const left = await prisma.apiKey.findMany({ where: { tenantId }, orderBy: { id: "asc" }, select: { id: true } });
    expect(left.map((k) => k.id)).toEqual(["key_active", "key_revoked_recent", "key_superseded", "key_tombstone_old"]);
    expect(run.rowsDeleted).toMatchObject({ api_keys: 2 });
  });

  it("the tombstones it keeps do not keep the purge index's old pages alive: the index stays its size", async () => {
    const tenantId = "district-churn";
    await prisma.tenant.create({ data: { id: tenantId, highWaterMark: 1_000_000n } });
    // `count` revoked keys `daysBack` days ago (a second apart), every `tombstoneEvery`-th a tombstone.
    const revokedKeys = (prefix: string, count: number, daysBack: number, tombstoneEvery = 0) =>
      prisma.$executeRawUnsafe(
        `INSERT INTO api_keys (id, tenant_id, status, activated_seq, deactivated_seq, revoked_at)
         SELECT $1 || lpad(i::text, 6, '0'), $2, 'revoked',
                CASE WHEN $3 > 0 AND i % $3 = 0 THEN NULL ELSE 1 END, 2, $4::timestamptz + i * interval '1 second'
         FROM generate_series(1, $5) i`,
        prefix,
        tenantId,
        tombstoneEvery,
        daysAgo(daysBack),
        count,
      );
    const indexBytes = async () =>
      Number(
        (await prisma.$queryRaw<{ n: bigint }[]>`SELECT pg_relation_size('api_keys_deactivated_purge') AS n`)[0]!.n,
      );

    // A year ago: 20,000 keys, one in a hundred a tombstone (revoked before we saw it activated).
    await revokedKeys("key_old_", 20_000, 500, 100);
    const filled = await indexBytes();
    const run = await purge();
    expect(run.rowsDeleted).toMatchObject({ api_keys: 19_800 });
    // What autovacuum does over the following days: empty index pages are deleted, and recycled
    // by a later vacuum once no transaction could still be reading them.
    await prisma.$executeRawUnsafe("VACUUM api_keys");
    await prisma.$queryRaw`SELECT pg_current_xact_id()::text`;
    await prisma.$executeRawUnsafe("VACUUM api_keys");
    // The same churn since: the index takes back the pages the purge emptied.
    await revokedKeys("key_new_", 20_000, 10);
    expect(await indexBytes()).toBeLessThan(filled * 1.3);
    // And the purge still walks that index (its WHERE implies the index's narrower predicate).
    const plan = await prisma.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(
      `EXPLAIN ${HISTORY_PURGES.api_keys.sql} SELECT count(*) FROM done`,
      null,
      null,
      now,
      500,
    );
    expect(plan.map((line) => line["QUERY PLAN"]).join("\n")).toContain("api_keys_deactivated_purge");
  });

  it("a late activation of a purged key never makes it live again", async () => {
    const tenantId = "district-late";
    const created = keyEvent({ type: "key.created", tenantId, keyId: "key_a", sequence: 1, occurredAt: daysAgo(500) });
    await deliver(created);
    await deliver(keyEvent({ type: "key.created", tenantId, keyId: "key_b", sequence: 2, occurredAt: daysAgo(499) }));
    await deliver(keyEvent({ type: "key.revoked", tenantId, keyId: "key_a", sequence: 3, occurredAt: daysAgo(450) }));

    const run = await purge();
    expect(run.rowsDeleted).toMatchObject({ api_keys: 1 });
    expect(await prisma.apiKey.findUnique({ where: { id: "key_a" } })).toBeNull();

    // The provider replays key_a's creation under a new event id, long after.
    const replay = await deliver({ ...created, id: "evt_replayed_creation" });

    expect(replay.body).toMatchObject({ outcome: "stale" });
    const keyA = await prisma.apiKey.findUniqueOrThrow({ where: { id: "key_a" } });
    expect(keyA.status).not.toBe("active");
    expect(await prisma.apiKey.count({ where: { tenantId, status: "active" } })).toBe(1);
  });
});
