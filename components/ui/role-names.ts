// A role in the words the dashboard shows it.
import { ROLES, type Role } from "@/lib/core/auth/actor";

export const ROLE_NAMES: Record<Role, string> = {
  district_admin: "District admin",
  support: "Support",
  platform_admin: "Platform admin",
};

export const ROLE_OPTIONS = ROLES.map((value) => ({ value, label: ROLE_NAMES[value] }));

/** "ask Ada (ada@…) or admin@…": whom a district admin asks for what only a platform admin may do. */
export function askPlatformAdmin(contacts: readonly { name: string | null; email: string }[]): string {
  if (contacts.length === 0) return "ask your platform admin";
  const names = contacts.map((c) => (c.name ? `${c.name} (${c.email})` : c.email));
  return `ask ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`}`;
}
