// The demo's data, and nothing else: the districts, their key histories and one account per role.
// A leaf: the seed applies it through the real ingest, the provider simulator (its own program)
// starts the demo districts from the same history so the events it streams continue it
// (simulator/demo-districts.ts), the launcher prints the accounts. `npm start` never seeds it
// unless KEYHOOK_SEED_DEMO=1 asks.
import type { Role } from "../../core/auth/actor";
import type { KeyEventInput } from "../provider/signed-delivery";

export const DEMO_TENANTS = [
  { id: "district-4417", name: "Maple Valley Unified" },
  { id: "district-2210", name: "Riverside County Schools" },
  { id: "district-0935", name: "Cedar Hills ISD" },
] as const;

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

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

export const DEMO_PASSWORD = "keyhook-demo-2026";

// The demo staff accounts' authenticator key (base32, public like the password): they must hold a
// second factor (MFA_REQUIRED_ROLES), so the seed enrols this one; `npm run dev` prints it, and the
// browser tests and the Try-it test compute their codes from it.
export const DEMO_TOTP_SECRET = "KEYHOOKDEMOTOTPKEYHOOKDEMOTOTP23";

export const DEMO_USERS: { email: string; name: string; role: Role; tenantId: string | null }[] = [
  { email: "admin@keyhook.test", name: "Platform Admin", role: "platform_admin", tenantId: null },
  { email: "support@keyhook.test", name: "Support Staff", role: "support", tenantId: null },
  { email: "admin@district-4417.test", name: "Maple Valley Admin", role: "district_admin", tenantId: "district-4417" },
  { email: "admin@district-2210.test", name: "Riverside Admin", role: "district_admin", tenantId: "district-2210" },
];
