import "server-only";
// Demo districts and key histories, applied through the real claim-and-apply path so the demo
// shows states the product can actually reach. Deterministic event ids: running it again only
// produces duplicates.
import { prisma, type Db } from "../db";
import { applyKeyEvent } from "../ingest/apply-key-event";
import { parseEvent } from "../ingest/event-schema";
import { buildKeyEvent, type KeyEventInput } from "../provider/signed-delivery";
import { seedDemoUsers } from "../auth/seed-demo-users";

export const DEMO_TENANTS = [
  { id: "district-4417", name: "Maple Valley Unified" },
  { id: "district-2210", name: "Riverside County Schools" },
  { id: "district-0935", name: "Cedar Hills ISD" },
] as const;

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

// Exported for the provider simulator, which starts the demo districts from this same history so
// the events it streams continue it (simulator/demo-districts.ts).
export const DEMO_KEY_HISTORY: readonly (KeyEventInput & { id: string })[] = [
  {
    id: "evt_demo_4417_1",
    type: "key.created",
    tenantId: "district-4417",
    keyId: "key_mv_01",
    sequence: 1,
    occurredAt: hoursAgo(72),
    scopes: ["rosters:read", "grades:read"],
  },
  {
    id: "evt_demo_4417_2",
    type: "key.rotated",
    tenantId: "district-4417",
    keyId: "key_mv_02",
    previousKeyId: "key_mv_01",
    sequence: 2,
    occurredAt: hoursAgo(30),
    scopes: ["rosters:read", "grades:read"],
  },
  {
    id: "evt_demo_2210_1",
    type: "key.created",
    tenantId: "district-2210",
    keyId: "key_rc_01",
    sequence: 1,
    occurredAt: hoursAgo(48),
    scopes: ["rosters:read"],
  },
  {
    id: "evt_demo_2210_2",
    type: "key.revoked",
    tenantId: "district-2210",
    keyId: "key_rc_01",
    sequence: 2,
    occurredAt: hoursAgo(5),
  },
  {
    id: "evt_demo_2210_3",
    type: "key.created",
    tenantId: "district-2210",
    keyId: "key_rc_02",
    sequence: 3,
    occurredAt: hoursAgo(4),
    scopes: ["rosters:read"],
  },
  {
    id: "evt_demo_0935_1",
    type: "key.created",
    tenantId: "district-0935",
    keyId: "key_ch_01",
    sequence: 1,
    occurredAt: hoursAgo(20),
    scopes: ["attendance:write"],
  },
  // The provider re-sent an old issue under a new id: absorbed as stale.
  {
    id: "evt_demo_0935_1b",
    type: "key.created",
    tenantId: "district-0935",
    keyId: "key_ch_01",
    sequence: 1,
    occurredAt: hoursAgo(19),
    scopes: ["attendance:write"],
  },
  // A misrouted event: names Maple Valley's key under Cedar Hills → quarantined for a human.
  {
    id: "evt_demo_0935_2",
    type: "key.revoked",
    tenantId: "district-0935",
    keyId: "key_mv_02",
    sequence: 2,
    occurredAt: hoursAgo(2),
  },
];

export async function seedDemoData(db: Db = prisma): Promise<{ applied: number; duplicates: number }> {
  for (const tenant of DEMO_TENANTS) {
    await db.tenant.upsert({ where: { id: tenant.id }, create: tenant, update: { name: tenant.name } });
  }
  let applied = 0;
  let duplicates = 0;
  for (const input of DEMO_KEY_HISTORY) {
    const body = buildKeyEvent(input);
    const parsed = parseEvent(body);
    if (!parsed.ok) throw new Error(`demo event ${input.id} is invalid: ${parsed.error}`);
    const rawBody = JSON.stringify(body);
    const result = await applyKeyEvent(
      {
        event: parsed.parsed.event,
        payloadJson: rawBody,
        receivedAt: input.occurredAt ?? new Date(),
        receipt: { webhookId: input.id, bodyBytes: Buffer.byteLength(rawBody), handlerMicros: 0, source: "replay" },
      },
      db,
    );
    if (result.outcome === "duplicate") duplicates++;
    else applied++;
  }
  // One sign-in per role for the dashboard (lib/auth/demo-users.ts; printed by the launcher).
  await seedDemoUsers(db);
  return { applied, duplicates };
}
