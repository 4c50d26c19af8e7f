// A role in the words the dashboard shows it.
import { ROLES, type Role } from "@/lib/auth/actor";

export const ROLE_NAMES: Record<Role, string> = {
  district_admin: "District admin",
  support: "Support",
  platform_admin: "Platform admin",
};

export const ROLE_OPTIONS = ROLES.map((value) => ({ value, label: ROLE_NAMES[value] }));
