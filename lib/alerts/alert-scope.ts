import "server-only";
// Which alerts an actor may see: a district admin their district's only (never the readiness
// canary's, never the platform-wide ones without a district); support and platform admins all.
import { tenantScope, type Actor } from "../auth/actor";
import type { Prisma } from "../generated/prisma/client";
import { CANARY_TENANT_ID } from "../readiness/canary";

export function alertScope(actor: Actor): Prisma.AlertWhereInput {
  const tenantId = tenantScope(actor);
  if (tenantId === undefined) return {};
  return { AND: [{ tenantId }, { tenantId: { not: CANARY_TENANT_ID } }] };
}
