// The drift check against the provider simulator whose truth changed behind our back: a key
// revoked there whose webhook never reached us, and a key issued there that was never delivered.
// Exactly those two alerts; resolving them stages the provider revoke in the outbox or records
// the provider's state here; a second run raises nothing new.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acknowledgeAlert, resolveAlert } from "@/lib/operations/alerts/act-on-alert";
import { SWEEP_ACTOR } from "@/lib/operations/alerts/alert-kinds";
import { sweepAlerts } from "@/lib/operations/worker/sweep-alerts";
import { getAlert } from "@/lib/views/alerts/get-alert";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { runDriftJob } from "@/lib/operations/drift/drift-job";
import { requestDriftCheck } from "@/lib/operations/drift/request-drift-check";
import { runDriftCheck } from "@/lib/operations/drift/run-drift-check";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { isAppError } from "@/lib/core/errors";
import { processOutbox } from "@/lib/operations/outbox/process-outbox";
import { createProviderClient, type ProviderClient } from "@/lib/operations/provider/client";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";

let sim: SimulatorProcess;
let client: ProviderClient;
beforeAll(async () => {
  sim = await startSimulator();
  client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY });
});
afterAll(async () => {
  await sim?.dispose();
});

const platformAdmin: Actor = {
  id: "u-platform",
  email: "platform@keyhook.test",
  name: null,
  role: "platform_admin",
  tenantId: null,
};
const support: Actor = { id: "u-support", email: "support@keyhook.test", name: null, role: "support", tenantId: null };
const districtAdmin = (tenantId: string): Actor => ({
  id: `u-${tenantId}`,
  email: `admin@${tenantId}.test`,
  name: null,
  role: "district_admin",
  tenantId,
});

let run = 0;
/** Each test its own districts: the simulator lives for the whole file. */
const district = (name: string) => `district-drift-${run}-${name}`;

/** A provider change that reached us: the same event, delivered to our ingest. */
async function delivered(type: "key.created" | "key.revoked", tenantId: string, keyId: string, sequence: number) {
  const answer = await deliver(keyEvent({ type, tenantId, keyId, sequence }));
  expect(answer.status).toBe(200);
}

/** Issued and delivered, then revoked at the provider with the webhook lost: live here, dead there. */
async function revokedThereOnly(tenantId: string, scopes: string[] = []): Promise<string> {
  const keyId = (await client.issueKey({ tenantId, scopes, idempotencyKey: `${tenantId}-1` })).key.id;
  await delivered("key.created", tenantId, keyId, 1);
  await client.revokeKey({ tenantId, keyId, idempotencyKey: `${tenantId}-2` });
  return keyId;
}

/** After a key both sides revoked (seq 1, 2), a new one issued and never delivered: live there, unknown here. */
async function issuedThereOnly(tenantId: string): Promise<string> {
  const old = (await client.issueKey({ tenantId, scopes: [], idempotencyKey: `${tenantId}-1` })).key.id;
  await delivered("key.created", tenantId, old, 1);
  await client.revokeKey({ tenantId, keyId: old, idempotencyKey: `${tenantId}-2` });
  await delivered("key.revoked", tenantId, old, 2);
  return (await client.issueKey({ tenantId, scopes: [], idempotencyKey: `${tenantId}-3` })).key.id;
}

async function driftAlerts() {
  return prisma.alert.findMany({ where: { kind: { startsWith: "drift_" } }, orderBy: { id: "asc" } });
}

beforeEach(async () => {
  await resetDatabase();
  run++;
});

describe("drift check", () => {
  it("raises exactly one alert per difference, resolves them with the safe action, and a second run raises nothing new", async () => {
    // A: revoked at the provider, the webhook lost beyond the horizon.
    const a = district("a");
    const keyA = await revokedThereOnly(a, ["rosters:read"]);
    // B: a new key issued at the provider, never delivered.
    const b = district("b");
    const keyB = await issuedThereOnly(b);
    // C: in agreement.
    const c = district("c");
    const keyC = (await client.issueKey({ tenantId: c, scopes: [], idempotencyKey: `${c}-1` })).key.id;
    await delivered("key.created", c, keyC, 1);

    const first = await runDriftCheck({ provider: client, trigger: "test", requestedBy: "test", pageSize: 2 });
    expect(first).toMatchObject({ status: "done", tenantsDone: 3, differences: 2, keysCompared: 4 });

    const alerts = await driftAlerts();
    expect(alerts.map((x) => [x.kind, x.subject, x.tenantId, x.state, x.count])).toEqual([
      ["drift_local_active", `drift/${a}/${keyA}`, a, "open", 1],
      ["drift_provider_active", `drift/${b}/${keyB}`, b, "open", 1],
    ]);
    // Both sides and the events that explain it.
    const detailA = await getAlert({ actor: platformAdmin, id: String(alerts[0]!.id) });
    expect(detailA.details).toMatchObject({
      provider: { status: "revoked" },
      ours: { status: "active", activated_seq: 1 },
    });
    expect(detailA.summary).toBe(`${keyA} is active here but revoked at the provider`);
    expect(detailA.evidence.events.map((e) => [e.type, e.outcome])).toEqual([["key.created", "applied"]]);
    expect(detailA.evidence.receipts.map((r) => r.status)).toEqual([200]);
    expect(detailA.actions.resolutions).toEqual(["recorded_provider_state", "explained"]);
    const detailB = await getAlert({ actor: platformAdmin, id: String(alerts[1]!.id) });
    expect(detailB.details).toMatchObject({ provider: { status: "active" }, ours: null });
    expect(detailB.evidence.events).toEqual([]);
    expect(detailB.actions.resolutions).toEqual(["revoke_requested", "explained"]);
    // Support may explain, never change a credential.
    expect((await getAlert({ actor: support, id: String(alerts[1]!.id) })).actions.resolutions).toEqual(["explained"]);

    // A second run with nothing changed: the same two alerts, no new row, no recount.
    await runDriftCheck({ provider: client, trigger: "test" });
    expect((await driftAlerts()).map((x) => [x.subject, x.state, x.count])).toEqual([
      [`drift/${a}/${keyA}`, "open", 1],
      [`drift/${b}/${keyB}`, "open", 1],
    ]);

    // Resolve A by recording the provider's state: our key becomes revoked, audited.
    await resolveAlert({ actor: districtAdmin(a), id: String(alerts[0]!.id), resolution: "recorded_provider_state" });
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: keyA } })).status).toBe("revoked");
    // Resolve B by revoking at the provider: one outbox row, same transaction as the alert's state.
    const resolvedB = await resolveAlert({
      actor: platformAdmin,
      id: String(alerts[1]!.id),
      resolution: "revoke_requested",
    });
    const outbox = await prisma.outboxMessage.findMany();
    expect(outbox.map((m) => [m.kind, m.tenantId, m.payload, m.status, m.id.toString()])).toEqual([
      ["key.revoke", b, { tenantId: b, keyId: keyB }, "pending", resolvedB.outboxId],
    ]);
    const audits = await prisma.auditLog.findMany({ where: { action: "alert.resolve" }, orderBy: { id: "asc" } });
    expect(audits.map((x) => [x.actor, x.outcome, (x.details as { resolution: string }).resolution])).toEqual([
      [`admin@${a}.test (district_admin)`, "ok", "recorded_provider_state"],
      ["platform@keyhook.test (platform_admin)", "ok", "revoke_requested"],
    ]);

    // Run again while the revoke still waits in the outbox: nothing re-opens.
    await runDriftCheck({ provider: client, trigger: "test" });
    expect((await driftAlerts()).map((x) => [x.state, x.count])).toEqual([
      ["resolved", 1],
      ["resolved", 1],
    ]);
    // The worker sends it; the provider revokes the key once; a run after that finds agreement.
    expect(
      await processOutbox({
        client: createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 }),
      }),
    ).toMatchObject({ sent: 1 });
    const truth = await sim.control<{ tenants: { keys: { id: string; status: string }[] }[] }>(
      "GET",
      `/_sim/truth?tenant=${b}`,
    );
    expect(truth.tenants[0]!.keys.find((k) => k.id === keyB)?.status).toBe("revoked");
    const last = await runDriftCheck({ provider: client, trigger: "test" });
    expect(last).toMatchObject({ status: "done", differences: 0 });
    expect(await prisma.alert.count({ where: { state: { not: "resolved" } } })).toBe(0);
  });

  it("keeps an explained difference resolved on the next run, and re-opens one that was resolved without its action", async () => {
    const d = district("explained");
    const key = (await client.issueKey({ tenantId: d, scopes: [], idempotencyKey: `${d}-1` })).key.id;
    await delivered("key.created", d, `key_local_only_${run}`, 1); // we know another key the provider never had
    await runDriftCheck({ provider: client, trigger: "test" });
    const alerts = await driftAlerts();
    expect(alerts.map((x) => x.subject).sort()).toEqual(
      [`drift/${d}/${key}`, `drift/${d}/key_local_only_${run}`].sort(),
    );
    const localOnly = alerts.find((x) => x.subject.endsWith(`key_local_only_${run}`))!;
    await expect(getAlert({ actor: platformAdmin, id: String(localOnly.id) })).resolves.toMatchObject({
      summary: `key_local_only_${run} is active here but not listed at the provider`,
    });
    // An explanation needs a note.
    await expect(
      resolveAlert({ actor: platformAdmin, id: String(localOnly.id), resolution: "explained" }),
    ).rejects.toSatisfy((e) => isAppError(e, "bad_request"));
    await resolveAlert({ actor: platformAdmin, id: String(localOnly.id), resolution: "explained", note: "test key" });
    await acknowledgeAlert({ actor: support, id: String(alerts.find((x) => x !== localOnly)!.id) });

    await runDriftCheck({ provider: client, trigger: "test" });
    const after = await driftAlerts();
    expect(after.map((x) => [x.subject.split("/")[2], x.state, x.count, x.resolution])).toEqual(
      alerts.map((x) =>
        x === localOnly ? [`key_local_only_${run}`, "resolved", 1, "explained"] : [key, "acknowledged", 1, null],
      ),
    );
  });

  it("a platform admin's button requests one run (audited); the worker's job runs it; other roles cannot", async () => {
    const d = district("button");
    await client.issueKey({ tenantId: d, scopes: [], idempotencyKey: `${d}-1` });
    await delivered("key.revoked", d, `key_gone_${run}`, 1); // a tenant row for the district
    await expect(requestDriftCheck({ actor: support })).rejects.toSatisfy((e) => isAppError(e, "not_found"));
    const requested = await requestDriftCheck({ actor: platformAdmin });
    expect(requested.outcome).toBe("requested");
    expect((await requestDriftCheck({ actor: platformAdmin })).outcome).toBe("already_waiting");
    expect(
      (await prisma.auditLog.findMany({ where: { action: "drift.run" } })).map((x) => [x.target, x.outcome]),
    ).toEqual([
      [`drift_runs/${requested.runId}`, "ok"],
      [`drift_runs/${requested.runId}`, "already_waiting"],
    ]);
    const result = await runDriftJob({ provider: client, intervalHours: 0 });
    expect(result).toMatchObject({ id: requested.runId, status: "done", trigger: "button", differences: 1 });
    // Nothing requested and the schedule is off: the job does nothing.
    expect(await runDriftJob({ provider: client, intervalHours: 0 })).toBeNull();
    // The schedule: due when the last run is older than the interval.
    expect(await runDriftJob({ provider: client, intervalHours: 24 })).toBeNull();
    const later = new Date(Date.now() + 25 * 3_600_000);
    expect(await runDriftJob({ provider: client, intervalHours: 24, now: () => later })).toMatchObject({
      status: "done",
      trigger: "schedule",
    });
  });
});

describe("drift our own side settles", () => {
  it("is resolved at the next alert sweep; a difference still there stays open", async () => {
    // A: live here, dead there — then the lost revoke arrives.
    const a = district("a");
    const keyA = await revokedThereOnly(a);
    // B: live there, unknown here — then the key arrives.
    const b = district("b");
    const keyB = await issuedThereOnly(b);
    // C: like A, but nothing arrives: the difference is still there.
    const c = district("c");
    const keyC = await revokedThereOnly(c);
    await runDriftCheck({ provider: client, trigger: "test" });
    expect((await driftAlerts()).map((x) => [x.subject, x.state])).toEqual([
      [`drift/${a}/${keyA}`, "open"],
      [`drift/${b}/${keyB}`, "open"],
      [`drift/${c}/${keyC}`, "open"],
    ]);

    await delivered("key.revoked", a, keyA, 2);
    await delivered("key.created", b, keyB, 3);
    expect((await sweepAlerts()).settled_drift).toEqual({ raised: 0, resolved: 2 });
    expect((await driftAlerts()).map((x) => [x.subject, x.state, x.resolution, x.resolvedBy])).toEqual([
      [`drift/${a}/${keyA}`, "resolved", "condition_cleared", SWEEP_ACTOR],
      [`drift/${b}/${keyB}`, "resolved", "condition_cleared", SWEEP_ACTOR],
      [`drift/${c}/${keyC}`, "open", null, null],
    ]);
  });
});

describe("list-keys (simulator and client)", () => {
  it("pages by key id with an opaque cursor, caps the page, and refuses a cursor it did not give out", async () => {
    const tenant = district("paging");
    await sim.control("POST", "/_sim/keys/bulk", { tenant_id: tenant, count: 5, status: "rotated" });
    const first = await client.listKeys({ tenantId: tenant, limit: 2 });
    expect(first.items.map((k) => k.status)).toEqual(["rotated", "rotated"]);
    const second = await client.listKeys({ tenantId: tenant, limit: 2, cursor: first.nextCursor });
    const third = await client.listKeys({ tenantId: tenant, limit: 2, cursor: second.nextCursor });
    expect(third.nextCursor).toBeNull();
    const ids = [...first.items, ...second.items, ...third.items].map((k) => k.id);
    expect(ids).toHaveLength(5);
    expect([...ids].sort()).toEqual(ids);
    expect((await client.listKeys({ tenantId: "district-nobody" })).items).toEqual([]);
    await expect(client.listKeys({ tenantId: tenant, limit: 1001 })).rejects.toMatchObject({
      code: "bad_request",
      attempts: 0,
    });
    await expect(client.listKeys({ tenantId: tenant, cursor: "not a cursor!" })).rejects.toMatchObject({
      code: "bad_request",
      status: 400,
    });
  });
});
