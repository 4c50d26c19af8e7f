// Who is acting. Every data-access function takes an Actor and scopes its queries by it
// (docs/design.md, "Where code goes": authorization lives in the data access layer).
import { AppError } from "../errors";
import { ROLES, type Role } from "../vocabulary";

export { ROLES, type Role };

export type Actor = {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  /** Set for a district admin only: the one tenant they may see. */
  tenantId: string | null;
};

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** How the actor appears in the audit log. */
export function actorLabel(actor: Actor): string {
  return `${actor.email} (${actor.role})`;
}

export function auditActor(actor: Actor): { id: string; label: string } {
  return { id: actor.id, label: actorLabel(actor) };
}

/**
 * The tenant filter for a query: a district admin is pinned to their tenant whatever they ask
 * for; staff see every tenant unless they ask for one. Asking for another district's data is
 * answered exactly like asking for data that does not exist (404), so ids do not leak.
 */
export function tenantScope(actor: Actor, requestedTenantId?: string | null): string | undefined {
  if (actor.role === "district_admin") {
    if (!actor.tenantId) throw new AppError("forbidden", "this account is not assigned to a district");
    if (requestedTenantId && requestedTenantId !== actor.tenantId) throw new AppError("not_found", "not found");
    return actor.tenantId;
  }
  return requestedTenantId || undefined;
}
