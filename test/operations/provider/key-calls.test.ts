// Issue and rotate from the district page, end to end with real processes: the dashboard's
// service stages the provider call in the outbox, the outbox sends it to the provider simulator,
// and the key appears (or rotates) when the provider's own webhook arrives at our ingest. A
// double submit of the form stages ONE call, and the provider sees one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/core/auth/actor";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { issueKey } from "@/lib/core/keys/issue-key";
import { rotateKey } from "@/lib/core/keys/rotate-key";
import { processOutbox } from "@/lib/operations/outbox/process-outbox";
import { createProviderClient } from "@/lib/operations/provider/client";
import { ensureWebhookRegistered } from "@/lib/operations/provider/webhook-registration";
import { startIngestServer, waitUntil, type RunningServer } from "../../support/child-process";
import { startSimulator, type SimulatorProcess } from "../../support/simulator";

let sim: SimulatorProcess;
let ingest: RunningServer;
const admin: Actor = { id: "u_admin", email: "admin@keyhook.test", name: null, role: "platform_admin", tenantId: null };
const tenantId = "district-keycalls";

beforeAll(async () => {
  [sim, ingest] = await Promise.all([
    startSimulator({ env: { PROVIDER_SIM_DATA_DIR: "memory" } }),
    startIngestServer({ DATABASE_URL: process.env.DATABASE_URL!, LOG_LEVEL: "warn" }),
  ]);
});
afterAll(async () => {
  await Promise.all([sim?.dispose(), ingest?.kill()]);
});

type ApiCall = { method: string; path: string; idempotencyKey: string | null; status: number; replayed: boolean };
const keyCalls = async () =>
  (await sim.control<{ calls: ApiCall[] }>("GET", "/_sim/api-calls")).calls.filter((c) =>
    c.path.startsWith(`/v1/tenants/${tenantId}/keys`),
  );
const liveKeys = () =>
  prisma.apiKey.findMany({ where: { tenantId, status: "active" }, select: { id: true, scopes: true } });

describe("issue and rotate through the outbox", () => {
  it("a double-submitted issue stages one call; the provider issues one key; a double rotate rotates once", async () => {
    const client = createProviderClient({ baseUrl: sim.url, apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 });
    await ensureWebhookRegistered({ url: `http://127.0.0.1:${ingest.port}/api/webhooks/keys`, client });
    await prisma.tenant.create({ data: { id: tenantId, name: "Key Calls ISD" } });
    const send = () => processOutbox({ client, now: () => new Date(Date.now() + 1_000) });

    // The form's one-time token, submitted twice at once (a double click) and once more after.
    const form = { actor: admin, tenantId, scopes: ["rosters:read", "grades:read"], requestToken: "form-token-0001" };
    const [first, second] = await Promise.all([issueKey(form), issueKey(form)]);
    expect([first.staged, second.staged].sort()).toEqual([false, true]);
    expect((await issueKey(form)).staged).toBe(false);
    expect(await prisma.outboxMessage.count({ where: { tenantId, kind: "key.issue" } })).toBe(1);

    expect(await send()).toMatchObject({ sent: 1 });
    expect(await send()).toMatchObject({ claimed: 0 });
    expect((await keyCalls()).map((c) => [c.method, c.path.split("/").slice(-1)[0], c.status])).toEqual([
      ["POST", "keys", 201],
    ]);
    await waitUntil(async () => (await liveKeys()).length === 1);
    const [issued] = await liveKeys();
    expect(issued!.scopes).toEqual(["rosters:read", "grades:read"]);

    // Rotate, twice: one staged call (rotate:<key>), one rotation at the provider.
    expect((await rotateKey({ actor: admin, keyId: issued!.id })).staged).toBe(true);
    expect((await rotateKey({ actor: admin, keyId: issued!.id })).staged).toBe(false);
    expect(await send()).toMatchObject({ sent: 1 });
    expect((await keyCalls()).filter((c) => c.path.endsWith("/rotate"))).toHaveLength(1);
    await waitUntil(async () => (await prisma.apiKey.findUnique({ where: { id: issued!.id } }))?.status === "rotated");
    await waitUntil(async () => (await liveKeys()).length === 1 && (await liveKeys())[0]!.id !== issued!.id);
    const truth = await sim.control<{ tenants: { keys: { id: string; status: string }[] }[] }>(
      "GET",
      `/_sim/truth?tenant=${tenantId}`,
    );
    expect(truth.tenants[0]!.keys.filter((k) => k.status === "active").map((k) => k.id)).toEqual(
      (await liveKeys()).map((k) => k.id),
    );
  });
});
