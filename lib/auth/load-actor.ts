import "server-only";
// Re-reads the user on every request: a disabled (or deleted, or re-roled) user loses access on
// the next request, whatever their session cookie still says.
import { prisma, type DbOrTx } from "../db";
import { isRole, type Actor } from "./actor";

export async function loadActor(userId: string | null | undefined, db: DbOrTx = prisma): Promise<Actor | null> {
  if (!userId) return null;
  const user = await db.user.findUnique({ where: { id: userId } });
  if (!user || user.disabledAt || !isRole(user.role)) return null;
  if (user.role === "district_admin" && !user.tenantId) return null;
  return { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId };
}

/** An OIDC sign-in maps to an existing, enabled user by verified email; nobody is auto-provisioned. */
export async function findActorByEmail(email: string, db: DbOrTx = prisma): Promise<Actor | null> {
  const user = await db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  return user ? loadActor(user.id, db) : null;
}
