// Demo accounts for `npm run dev` and the browser tests, one per role. Printed by the launcher;
// never seeded by `npm start` unless KEYHOOK_SEED_DEMO=1 asks for it.
import type { Role } from "./actor";

export const DEMO_PASSWORD = "keyhook-demo-2026";

export const DEMO_USERS: { email: string; name: string; role: Role; tenantId: string | null }[] = [
  { email: "admin@keyhook.test", name: "Platform Admin", role: "platform_admin", tenantId: null },
  { email: "support@keyhook.test", name: "Support Staff", role: "support", tenantId: null },
  { email: "admin@district-4417.test", name: "Maple Valley Admin", role: "district_admin", tenantId: "district-4417" },
  { email: "admin@district-2210.test", name: "Riverside Admin", role: "district_admin", tenantId: "district-2210" },
];
