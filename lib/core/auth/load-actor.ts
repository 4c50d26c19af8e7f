import "server-only";
// Re-reads the user on every request: a disabled (or deleted, or re-roled) user loses access on
// the next request, whatever their session cookie still says. The cookie also carries the
// session version it was issued under; any other version (bumped by sign-out, disable, role,
// district or password change: see the users_bump_session_version trigger) ends that session.
import { prisma, type DbOrTx } from "../db/client";
import { isRole, type Actor } from "./actor";

export async function loadActor(
  userId: string | null | undefined,
  db: DbOrTx = prisma,
  session?: { sessionVersion: number | null | undefined },
): Promise<Actor | null> {
  if (!userId) return null;
  const user = await db.user.findUnique({ where: { id: userId } });
  if (!user || user.disabledAt || !isRole(user.role)) return null;
  if (session && session.sessionVersion !== user.sessionVersion) return null;
  if (user.role === "district_admin" && !user.tenantId) return null;
  return { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId };
}

/**
 * Why a session that names a real user no longer signs them in: the account was disabled, or it
 * changed (role, district, password, a sign-out elsewhere) since the session began. Only ever
 * told to the holder of that session (its cookie is signed), so it confirms nothing to anyone
 * else; the sign-in form itself keeps one answer for every refusal (docs/design.md, "Sign-in and
 * sessions").
 */
export async function endedSessionReason(
  userId: string | null | undefined,
  sessionVersion: number | null | undefined,
  db: DbOrTx = prisma,
): Promise<"disabled" | "changed" | null> {
  if (!userId) return null;
  const user = await db.user.findUnique({ where: { id: userId }, select: { disabledAt: true, sessionVersion: true } });
  if (!user) return null;
  if (user.disabledAt) return "disabled";
  return sessionVersion !== user.sessionVersion ? "changed" : null;
}

/** The session version a new session is issued under. */
export async function currentSessionVersion(userId: string, db: DbOrTx = prisma): Promise<number | null> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { sessionVersion: true } });
  return user?.sessionVersion ?? null;
}

/** Sign-out ends every session of the user (all devices), not only this cookie's. */
export async function endAllSessions(userId: string, db: DbOrTx = prisma): Promise<void> {
  await db.$executeRaw`UPDATE users SET session_version = session_version + 1 WHERE id = ${userId}`;
}

/** An OIDC sign-in maps to an existing, enabled user by verified email; nobody is auto-provisioned. */
export async function findActorByEmail(email: string, db: DbOrTx = prisma): Promise<Actor | null> {
  const user = await db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  return user ? loadActor(user.id, db) : null;
}
